"""The sandbox's Docker image, built without a registry and cached.

`debootstrap --variant=minbase --include=python3,python3-seccomp bookworm`
makes a Debian root filesystem with python3, its standard library and
libseccomp's binding (the worker's syscall filter) added (docs, man pages, locales and
apt's caches removed); it is kept as a tarball in the cache dir and turned into
an image with `docker import`. The image is rebuilt only if both are missing.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from env_servers.sandbox.engine import cache_dir

IMAGE = "lats-sandbox-python:bookworm-seccomp"
PACKAGES = ("python3", "python3-seccomp")
SUITE = "bookworm"
TRIM = (
    "usr/share/doc",
    "usr/share/man",
    "usr/share/info",
    "usr/share/locale",
    "var/cache/apt",
    "var/lib/apt/lists",
)


class ImageUnavailable(RuntimeError):
    """The image is missing and could not be built; the message says why."""


def rootfs_tarball(refresh: bool = False) -> Path:
    """The cached rootfs tarball, built with debootstrap if missing (root only, ~1-2 minutes)."""
    tarball = cache_dir() / f"rootfs-{SUITE}-{'-'.join(PACKAGES)}.tar"
    if tarball.exists() and not refresh:
        return tarball
    debootstrap = shutil.which("debootstrap")
    if debootstrap is None:
        raise ImageUnavailable("debootstrap is not installed: run `make setup` (installs the Debian package)")
    tarball.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rootfs-", dir=tarball.parent) as work:
        root = Path(work) / "root"
        result = subprocess.run(
            [debootstrap, "--variant=minbase", f"--include={','.join(PACKAGES)}", SUITE, str(root)],
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            raise ImageUnavailable(f"debootstrap failed ({result.returncode}): {result.stderr[-1500:]}")
        for relative in TRIM:
            shutil.rmtree(root / relative, ignore_errors=True)
        partial = tarball.with_suffix(".partial")
        subprocess.run(["tar", "-C", str(root), "-cf", str(partial), "."], check=True)
        partial.replace(tarball)
    return tarball


def ensure_image(client, image: str = IMAGE) -> str:
    """Make sure `image` exists in the engine behind `client` (docker SDK); return its id."""
    import docker

    try:
        return client.images.get(image).id
    except docker.errors.ImageNotFound:
        pass
    tarball = rootfs_tarball()
    repository, _, tag = image.partition(":")
    client.api.import_image_from_file(str(tarball), repository=repository, tag=tag or "latest")
    return client.images.get(image).id
