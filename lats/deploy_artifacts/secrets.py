"""The secrets every replica of a deployment shares, generated once into a folder.

  snapshot_key       signs environment snapshot blobs (`--snapshot-key-file`);
                     every environment replica must read the same one
  postgres_password  the run store's database password (POSTGRES_PASSWORD_FILE)
  pgpass             the same for the planners' libpq (PGPASSFILE): any host,
                     port and database, user `lats`

Existing files are kept, so a restarted stack keeps its key and password.
Nothing here is ever committed: a deployment generates its own.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

DATABASE_USER = "lats"


def _write_once(path: Path, text: str, mode: int) -> bool:
    """Writes `text` to a new file `path` with `mode`; False if it already existed."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        return False
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(path, mode)
    return True


def init_secrets(folder: Path) -> dict[str, bool]:
    """Creates the missing secrets in `folder`; says which files were new."""
    folder.mkdir(parents=True, exist_ok=True)
    created = {"snapshot_key": _write_once(folder / "snapshot_key",
                                           secrets.token_hex(32) + "\n", 0o400)}
    password_path = folder / "postgres_password"
    created["postgres_password"] = _write_once(password_path, secrets.token_hex(24) + "\n",
                                               0o444)
    password = password_path.read_text(encoding="utf-8").strip()
    created["pgpass"] = _write_once(folder / "pgpass",
                                    f"*:*:*:{DATABASE_USER}:{password}\n", 0o600)
    return created
