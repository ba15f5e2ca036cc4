"""Every vendored data file has a provenance row and an intact checksum."""

import hashlib
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "lats_data"


def _sums() -> dict[str, str]:
    lines = (DATA / "SHA256SUMS").read_text().split("\n")
    return {name: digest for digest, name in (line.split() for line in lines if line.strip())}


def test_every_data_file_has_a_checksum_and_a_provenance_row():
    readme = (DATA / "README.md").read_text()
    sums = _sums()
    for path in DATA.iterdir():
        if path.name in {"README.md", "SHA256SUMS", "__init__.py", "__pycache__"}:
            continue
        assert path.name in sums, f"{path.name} has no line in lats_data/SHA256SUMS"
        assert f"`{path.name}`" in readme, f"{path.name} has no provenance row in lats_data/README.md"


def test_vendored_files_match_their_checksums():
    for name, digest in _sums().items():
        path = DATA / name
        if path.exists():
            assert hashlib.sha256(path.read_bytes()).hexdigest() == digest, f"{name} changed"
