"""A wheelhouse for image builds that cannot reach a package index.

`fill_wheelhouse(source, extras, target)` builds the project's wheel from the
source tree and gathers wheels of every runtime dependency (with `extras`)
into a cached folder, using the host's pip for the *image's* interpreter
(`TargetPython`: Debian bookworm's CPython 3.11.2 on x86-64 glibc 2.36 by
default), so the host's own Python version does not matter. pip's index and
cache serve the first build; afterwards the folder alone (`--no-index`), so a
warm build needs no network. The folder is keyed by the dependency list,
extras and target; the project wheel in it is rebuilt every time (the code
changes, its dependencies rarely do).
"""

from __future__ import annotations

import hashlib
import os
import platform
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from lats_runtime.resources import cache_dir

PROJECT = "lats-platform"
WHEEL_GLOB = "lats_platform-*.whl"


class WheelhouseError(RuntimeError):
    """pip could not build or gather a wheel; the message carries pip's own words."""


@dataclass(frozen=True)
class TargetPython:
    """The interpreter the wheels are for: its version and what its platform accepts."""

    version: str = "3.11.2"
    machine: str = "x86_64"
    glibc_minor: int = 36   # glibc 2.36

    @property
    def abi(self) -> str:
        major, minor = self.version.split(".")[:2]
        return f"cp{major}{minor}"

    def platforms(self) -> list[str]:
        legacy = ["manylinux2014", "manylinux2010", "manylinux1"]
        modern = [f"manylinux_2_{minor}" for minor in range(self.glibc_minor, 4, -1)]
        return [f"{tag}_{self.machine}" for tag in (*modern, *legacy, "linux")]

    def pip_options(self) -> list[str]:
        options = ["--only-binary=:all:", "--python-version", self.version,
                   "--implementation", "cp", "--abi", self.abi, "--abi", "abi3", "--abi", "none"]
        for tag in self.platforms():
            options += ["--platform", tag]
        return options


DEBIAN_BOOKWORM = TargetPython(machine=platform.machine() or "x86_64")


def _requirements_digest(source: Path, extras: str, target: TargetPython) -> str:
    project = tomllib.loads((source / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    text = repr((project.get("dependencies"), project.get("optional-dependencies"), extras,
                 target))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def wheelhouse_dir(source: Path, extras: str = "",
                   target: TargetPython = DEBIAN_BOOKWORM) -> Path:
    return cache_dir("deploy") / f"wheelhouse-{_requirements_digest(source, extras, target)}"


# Zip timestamps of a wheel built under SOURCE_DATE_EPOCH are fixed, so the same
# source gives the same wheel bytes and an image build's layers stay cached.
REPRODUCIBLE = {"SOURCE_DATE_EPOCH": "315532800"}     # 1980-01-01, zip's earliest


def _pip(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
                          capture_output=True, text=True, env={**REPRODUCIBLE, **os.environ})


def build_project_wheel(source: Path, target: Path) -> Path:
    """The project's wheel, freshly built from `source` into `target` (old ones removed)."""
    target.mkdir(parents=True, exist_ok=True)
    for old in target.glob(WHEEL_GLOB):
        old.unlink()
    result = _pip("wheel", "--no-deps", "--quiet", "--wheel-dir", str(target), str(source))
    if result.returncode != 0:
        raise WheelhouseError(f"building the {PROJECT} wheel failed: {result.stderr[-2000:]}")
    return next(target.glob(WHEEL_GLOB))


def fill_wheelhouse(source: Path, extras: str = "",
                    target: TargetPython = DEBIAN_BOOKWORM) -> Path:
    """A folder holding the project's wheel and every wheel it needs (with `extras`)
    on `target`."""
    folder = wheelhouse_dir(source, extras, target)
    wheel = build_project_wheel(source, folder)
    requirement = f"{PROJECT}[{extras}] @ {wheel.as_uri()}" if extras else str(wheel)
    download = ["download", "--quiet", *target.pip_options(), "--find-links", str(folder),
                "--dest", str(folder), requirement]
    if _pip(*download[:1], "--no-index", *download[1:]).returncode == 0:
        return folder
    online = _pip(*download)
    if online.returncode != 0:
        raise WheelhouseError(f"gathering the wheels of {PROJECT}[{extras}] for Python "
                              f"{target.version} failed: {online.stderr[-2000:]}")
    return folder
