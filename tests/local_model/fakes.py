"""Fake model part packages: real dist-info folders on sys.path, tiny slices."""

from __future__ import annotations

import hashlib
from pathlib import Path

from llm_gateway.model_store import ModelSpec

FAKE_VERSION = "1.0"


def install_fake_part(site: Path, package: str, index: int, data: bytes,
                      version: str = FAKE_VERSION) -> Path:
    """Writes a part package the way pip would lay it out; returns its slice."""
    module = package.replace("-", "_")
    slice_path = site / module / "data" / f"part{index:02d}.bin"
    slice_path.parent.mkdir(parents=True, exist_ok=True)
    slice_path.write_bytes(data)
    info = site / f"{module}-{version}.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n")
    (info / "RECORD").write_text(
        f"{module}/__init__.py,,\n{module}/data/part{index:02d}.bin,,\n{info.name}/RECORD,,\n")
    return slice_path


def fake_spec(name: str, slices: list[bytes], *, prefix: str = "fake-part") -> ModelSpec:
    """A registry entry whose parts are `prefix`1..N and whose file is their concatenation."""
    whole = b"".join(slices)
    return ModelSpec(
        name=name,
        filename=f"{name}.gguf",
        part_packages=tuple(f"{prefix}{i}" for i in range(1, len(slices) + 1)),
        part_version=FAKE_VERSION,
        size=len(whole),
        sha256=hashlib.sha256(whole).hexdigest(),
        description="fake model for tests",
        chat_template_notes="",
    )
