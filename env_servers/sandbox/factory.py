"""Choose and build a sandbox backend by name."""

from __future__ import annotations

import sys

from env_servers.sandbox.base import Sandbox, SandboxUnavailable

BACKENDS = ("bwrap", "docker", "process")
POOL_OPTIONS = ("workers", "recycle_after", "start_timeout", "reply_grace")


def make_sandbox(name: str = "auto", *, allow_insecure: bool = False, **options) -> Sandbox:
    """Build a sandbox backend.

    name: "auto" (bubblewrap on Linux), "bwrap", "docker" or "process".
    "process" isolates nothing and is refused unless allow_insecure=True.
    options: pool options (workers, recycle_after, start_timeout, reply_grace)
    and backend options (all: design, a worker_script.WorkerDesign, SPLIT
    unless given, as the tests give their insecure control; bwrap: python,
    tmp_bytes, shm_bytes; docker: client, base_url, image,
    container_memory_bytes, cpus, tmp_bytes; process: python).
    Raises SandboxUnavailable (saying what to install or start), ValueError,
    or TypeError (a design that is not a WorkerDesign).
    """
    from env_servers.sandbox.pool import WorkerPool

    pool_options = {key: options.pop(key) for key in POOL_OPTIONS if key in options}
    if name == "auto":
        if not sys.platform.startswith("linux"):
            raise SandboxUnavailable("no default sandbox off Linux: ask for 'docker' explicitly")
        name = "bwrap"
    if name == "bwrap":
        from env_servers.sandbox.bwrap import BwrapLauncher

        launcher = BwrapLauncher(**options)
    elif name == "docker":
        from env_servers.sandbox.docker_backend import DockerLauncher

        launcher = DockerLauncher(**options)
    elif name == "process":
        if not allow_insecure:
            raise SandboxUnavailable(
                "the 'process' sandbox runs untrusted code with no isolation; "
                "pass allow_insecure=True (development only) or use 'bwrap' or 'docker'"
            )
        from env_servers.sandbox.process import ProcessLauncher

        launcher = ProcessLauncher(**options)
    else:
        raise ValueError(f"unknown sandbox {name!r}: choose one of auto, {', '.join(BACKENDS)}")
    return WorkerPool(launcher, **pool_options)
