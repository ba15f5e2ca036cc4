"""The bubblewrap backend: each worker runs in its own bwrap sandbox.

Inside: new user/pid/net/ipc/uts/cgroup namespaces (and no nested user
namespaces, which would hand the program capabilities), the worker as PID 1, the
host's /usr read-only (with the merged-/usr symlinks), a fresh /proc and minimal
/dev, a size-capped private tmpfs at /tmp (the work dir lives there), a small
tmpfs /dev/shm, everything else read-only, no /etc, /root or /home, a cleared
environment. bwrap itself runs as an unprivileged per-slot uid when the host is
root (root inside would be real root), dies with its parent, and starts a new
session (no terminal injection). As root, each slot also gets its own cgroup
(cgroups.py): one memory and pids cap over all its processes, set per run.
"""

from __future__ import annotations

import asyncio
import shutil
import uuid

from env_servers.sandbox.base import SandboxUnavailable
from env_servers.sandbox.cgroups import SlotCgroup, create_slot_cgroup, remove_pool_cgroups
from env_servers.sandbox.channel import (
    Launcher,
    WorkerChannel,
    check_design,
    design_arguments,
    start_subprocess_worker,
    worker_source,
)
from env_servers.sandbox.uids import allocate_uid, running_as_root

WORK_DIR = "/tmp/work"
SANDBOX_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": WORK_DIR,
    "TMPDIR": "/tmp",
    "LANG": "C.UTF-8",
}


def find_bwrap() -> str:
    path = shutil.which("bwrap")
    if path is None:
        raise SandboxUnavailable(
            "bubblewrap (bwrap) is not installed: "
            "run `make setup`, which installs the Debian package bubblewrap"
        )
    return path


class BwrapLauncher(Launcher):
    name = "bwrap"
    secure = True

    def __init__(
        self,
        *,
        python: str = "/usr/bin/python3",
        tmp_bytes: int = 128 << 20,
        shm_bytes: int = 16 << 20,
        design: str = "split",
    ):
        self.bwrap = find_bwrap()
        self.design = check_design(design)
        self.python = python
        self.tmp_bytes = tmp_bytes
        self.shm_bytes = shm_bytes
        self._uids: dict[int, int] = {}
        self._cgroups: dict[int, SlotCgroup | None] = {}
        self.pool_name = uuid.uuid4().hex[:12]
        self._source = worker_source()

    def slot_uid(self, slot: int) -> int | None:
        if not running_as_root():
            return None
        if slot not in self._uids:
            self._uids[slot] = allocate_uid()
        return self._uids[slot]

    def argv(self) -> list[str]:
        environment = [arg for key, value in SANDBOX_ENV.items() for arg in ("--setenv", key, value)]
        return [
            self.bwrap,
            "--unshare-all",
            "--unshare-user",
            "--disable-userns",
            "--die-with-parent",
            "--new-session",
            "--as-pid-1",
            "--hostname", "sandbox",
            "--ro-bind", "/usr", "/usr",
            "--symlink", "usr/bin", "/bin",
            "--symlink", "usr/sbin", "/sbin",
            "--symlink", "usr/lib", "/lib",
            "--symlink", "usr/lib64", "/lib64",
            "--proc", "/proc",
            "--dev", "/dev",
            "--size", str(self.shm_bytes), "--tmpfs", "/dev/shm",
            "--remount-ro", "/dev",
            "--size", str(self.tmp_bytes), "--perms", "0700", "--tmpfs", "/tmp",
            "--remount-ro", "/",
            "--chdir", "/tmp",
            "--clearenv",
            *environment,
            self.python, "-I", "-c", self._source,
            "--work", WORK_DIR, "--wipe", "/tmp", "--wipe", "/dev/shm", *design_arguments(self.design),
        ]  # fmt: skip

    def slot_cgroup(self, slot: int):
        """The slot's cgroup (made once), or None where this host allows none."""
        if slot not in self._cgroups:
            self._cgroups[slot] = create_slot_cgroup(self.pool_name, slot) if running_as_root() else None
        return self._cgroups[slot]

    async def start(self, slot: int) -> WorkerChannel:
        return await start_subprocess_worker(
            self.argv(), uid=self.slot_uid(slot), env={"PATH": "/usr/bin:/bin"}, cgroup=self.slot_cgroup(slot)
        )

    async def aclose(self) -> None:
        if any(self._cgroups.values()):
            await asyncio.to_thread(remove_pool_cgroups, self.pool_name)
