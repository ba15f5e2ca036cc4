"""A throwaway PostgreSQL cluster on loopback, for tests and benchmarks.

`throwaway_postgres()` runs initdb in a temporary directory, starts the
server on a free port (fsync off: nothing here must survive), yields a
connection URL, and stops and deletes the cluster on exit. PostgreSQL refuses
to run as root, so as root the server runs as the `postgres` system user
(Debian's postgresql package creates it). Needs the server binaries
(`scripts/install_system_packages.sh` installs Debian's postgresql).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server binaries, or the cluster would not start (says why)."""


def server_bindir() -> Path:
    """Where initdb and pg_ctl live (the newest installed major version)."""
    configured = os.environ.get("LATS_PG_BINDIR")
    candidates = [configured] if configured else sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name))[::-1]
    for candidate in candidates:
        if candidate and (Path(candidate) / "pg_ctl").exists():
            return Path(candidate)
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).parent
    raise PostgresUnavailable("no PostgreSQL server binaries (initdb, pg_ctl): run `make setup`, "
                              "or set LATS_PG_BINDIR")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def throwaway_postgres(user: str = "lats"):
    """Yields postgresql://USER@127.0.0.1:PORT/postgres for a fresh, private cluster."""
    bindir = server_bindir()
    root = tempfile.mkdtemp(prefix="lats-pg-")
    as_user: list[str] = []
    if os.geteuid() == 0:
        try:
            account = pwd.getpwnam("postgres")
        except KeyError:
            shutil.rmtree(root, ignore_errors=True)
            raise PostgresUnavailable("running as root needs the `postgres` system user") from None
        os.chown(root, account.pw_uid, account.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    data, port = Path(root) / "data", _free_port()

    def run(*argv: str) -> None:
        result = subprocess.run([*as_user, *argv], capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise PostgresUnavailable(f"{Path(argv[0]).name} failed ({result.returncode}): "
                                      f"{(result.stderr or result.stdout)[-1500:]}")

    try:
        run(str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", user, "--no-sync",
            "-E", "UTF8")
        run(str(bindir / "pg_ctl"), "-D", str(data), "-l", str(Path(root) / "server.log"),
            "-w", "-t", "60", "-o",
            f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off", "start")
        try:
            yield f"postgresql://{user}@127.0.0.1:{port}/postgres"
        finally:
            subprocess.run([*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate",
                            "-w", "stop"], capture_output=True, timeout=60)
    finally:
        shutil.rmtree(root, ignore_errors=True)
