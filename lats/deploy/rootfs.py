"""Base images built without a registry: a Debian root filesystem from debootstrap.

`ensure_rootfs_image(client, spec)` makes sure the image `spec.image` exists in
the engine: it imports the cached tarball of `spec`, or first builds it with
`debootstrap --variant=minbase --include=PACKAGES bookworm` (root only, a minute
or two; downloads from Debian's mirror), trims docs, man pages, locales and
apt's caches, and keeps the tarball in the cache (`cache_dir("deploy")`) so the
next build is an import of seconds. The tarball's name carries a digest of the
spec, so a changed package list never reuses a stale one.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from lats_runtime.resources import cache_dir

SUITE = "bookworm"
TRIM = ("usr/share/doc", "usr/share/man", "usr/share/info", "usr/share/locale",
        "var/cache/apt", "var/lib/apt/lists")


class RootfsUnavailable(RuntimeError):
    """The base could not be built; the message says why and what to install."""


@dataclass(frozen=True)
class RootfsSpec:
    """A Debian root filesystem: its image name and the packages on top of minbase."""

    image: str
    packages: tuple[str, ...]
    suite: str = SUITE

    @property
    def digest(self) -> str:
        text = f"{self.suite}:{','.join(sorted(self.packages))}:{','.join(TRIM)}"
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    @property
    def tag(self) -> str:
        """The image tag: the digest, so a changed spec makes a new image."""
        return f"{self.image.partition(':')[0]}:{self.suite}-{self.digest}"


# What every LATS service needs from the system: Python 3.11 with venv (the
# image installs into /opt/lats), bubblewrap and python3-seccomp for the code
# runner's sandbox (its worker runs on the system python3 under a seccomp
# filter), tini as PID 1, CA certificates for HTTPS model endpoints, and GNU
# OpenMP, which the embedded model's runtime (xllamacpp, the `local` extra) loads.
SERVICE_BASE = RootfsSpec("lats-base", ("python3", "python3-venv", "python3-seccomp", "bubblewrap",
                                        "tini", "ca-certificates", "libgomp1"))
# Debian's PostgreSQL for the run store, where no registry offers postgres images.
POSTGRES_BASE = RootfsSpec("lats-postgres-base", ("postgresql-15",))


def rootfs_cache() -> Path:
    return cache_dir("deploy")


def tarball_path(spec: RootfsSpec) -> Path:
    return rootfs_cache() / f"rootfs-{spec.suite}-{spec.image}-{spec.digest}.tar"


def build_tarball(spec: RootfsSpec, refresh: bool = False) -> Path:
    """The cached rootfs tarball of `spec`, built with debootstrap if missing."""
    tarball = tarball_path(spec)
    if tarball.is_file() and not refresh:
        return tarball
    debootstrap = shutil.which("debootstrap")
    if debootstrap is None:
        raise RootfsUnavailable("debootstrap is not installed: run `make setup` (installs "
                                "the Debian package) or `apt-get install debootstrap`")
    if os.geteuid() != 0:
        raise RootfsUnavailable("debootstrap needs root; build the base as root, or use "
                                "a base image from a registry (--base python:3.11-slim-bookworm)")
    tarball.parent.mkdir(parents=True, exist_ok=True)
    debs = rootfs_cache() / f"debs-{spec.image}"  # one per spec: builds may run at once
    debs.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rootfs-", dir=tarball.parent) as work:
        root = Path(work) / "root"
        result = subprocess.run(
            [debootstrap, "--variant=minbase", f"--cache-dir={debs}",
             f"--include={','.join(spec.packages)}", spec.suite, str(root)],
            capture_output=True, text=True)
        if result.returncode != 0:
            raise RootfsUnavailable(f"debootstrap of {spec.image} failed ({result.returncode}): "
                                    f"{(result.stderr or result.stdout)[-1500:]}")
        for relative in TRIM:
            shutil.rmtree(root / relative, ignore_errors=True)
        partial = tarball.with_suffix(".partial")
        subprocess.run(["tar", "-C", str(root), "--numeric-owner", "-cf", str(partial), "."],
                       check=True)
        partial.replace(tarball)
    return tarball


def ensure_rootfs_image(client, spec: RootfsSpec) -> str:
    """The tag of `spec`'s image in the engine behind `client` (docker SDK), imported
    from the cached tarball (built first if missing)."""
    import docker

    try:
        client.images.get(spec.tag)
        return spec.tag
    except docker.errors.ImageNotFound:
        pass
    tarball = build_tarball(spec)
    repository, _, tag = spec.tag.partition(":")
    client.api.import_image_from_file(str(tarball), repository=repository, tag=tag)
    client.images.get(spec.tag)
    return spec.tag
