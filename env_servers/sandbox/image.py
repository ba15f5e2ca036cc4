"""The sandbox's Docker image, built without a registry and cached (see rootfs.py).

A Debian minbase root filesystem with python3, its standard library and
libseccomp's binding (the worker's syscall filter); its tarball is kept in the
sandbox's cache dir and imported with `docker import`. The image keeps its tag
when the spec changes, so an engine that holds it never rebuilds it.
"""

from __future__ import annotations

from env_servers.sandbox.engine import cache_dir
from env_servers.sandbox.rootfs import RootfsSpec, ensure_rootfs_image

SANDBOX_ROOTFS = RootfsSpec("lats-sandbox-python", ("python3", "python3-seccomp"), fixed_tag="bookworm-seccomp")
IMAGE = SANDBOX_ROOTFS.tag


def ensure_image(client) -> str:
    """Make sure the sandbox's image exists in the engine behind `client` (docker SDK); return its id.

    Raises rootfs.RootfsUnavailable when it is missing and cannot be built.
    """
    return client.images.get(ensure_rootfs_image(client, SANDBOX_ROOTFS, cache_dir())).id
