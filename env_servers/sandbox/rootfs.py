"""Docker images built without a registry: a Debian root filesystem from debootstrap.

`ensure_rootfs_image(client, spec, cache)` makes sure the image `spec.tag`
exists in the engine: it imports the cached tarball of `spec`, or first builds
it with `debootstrap --variant=minbase --include=PACKAGES bookworm` (root only,
a minute or two; downloads from Debian's mirror), trims docs, man pages,
locales and apt's caches, and keeps the tarball (and the downloaded packages)
in `cache` so the next build is an import of seconds. The tarball's name
carries a digest of the spec, so a changed package list never reuses a stale
one. The sandbox's image and the deployment's base images are built here.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

SUITE = "bookworm"
TRIM = ("usr/share/doc", "usr/share/man", "usr/share/info", "usr/share/locale",
        "var/cache/apt", "var/lib/apt/lists")


class RootfsUnavailable(RuntimeError):
    """The root filesystem could not be built; the message says why and what to install."""


@dataclass(frozen=True)
class RootfsSpec:
    """A Debian root filesystem: its image name and the packages on top of minbase.

    fixed_tag: a tag that stays the same when the spec changes (the sandbox's,
    whose engines already hold it); empty, the tag is `<suite>-<digest>`.
    """

    image: str
    packages: tuple[str, ...]
    suite: str = SUITE
    fixed_tag: str = ""

    @property
    def digest(self) -> str:
        text = f"{self.suite}:{','.join(sorted(self.packages))}:{','.join(TRIM)}"
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    @property
    def tag(self) -> str:
        """The image's full name and tag."""
        return f"{self.image.partition(':')[0]}:{self.fixed_tag or f'{self.suite}-{self.digest}'}"


def tarball_path(spec: RootfsSpec, cache: Path) -> Path:
    return cache / f"rootfs-{spec.suite}-{spec.image}-{spec.digest}.tar"


def build_tarball(spec: RootfsSpec, cache: Path, refresh: bool = False) -> Path:
    """The cached rootfs tarball of `spec` in `cache`, built with debootstrap if missing."""
    tarball = tarball_path(spec, cache)
    if tarball.is_file() and not refresh:
        return tarball
    debootstrap = shutil.which("debootstrap")
    if debootstrap is None:
        raise RootfsUnavailable("debootstrap is not installed: run `make setup` (installs "
                                "the Debian package) or `apt-get install debootstrap`")
    if os.geteuid() != 0:
        raise RootfsUnavailable(f"debootstrap needs root: build {spec.image} as root, or use "
                                "an image from a registry")
    tarball.parent.mkdir(parents=True, exist_ok=True)
    debs = cache / f"debs-{spec.image}"  # one per spec: builds may run at once
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


def ensure_rootfs_image(client, spec: RootfsSpec, cache: Path) -> str:
    """The tag of `spec`'s image in the engine behind `client` (docker SDK), imported
    from the tarball cached in `cache` (built first if missing)."""
    import docker

    try:
        client.images.get(spec.tag)
        return spec.tag
    except docker.errors.ImageNotFound:
        pass
    tarball = build_tarball(spec, cache)
    repository, _, tag = spec.tag.partition(":")
    client.api.import_image_from_file(str(tarball), repository=repository, tag=tag)
    client.images.get(spec.tag)
    return spec.tag
