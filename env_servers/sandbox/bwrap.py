"""The bubblewrap backend: each worker runs in its own bwrap sandbox.

Inside: new user/pid/net/ipc/uts/cgroup namespaces (and no nested user
namespaces, which would hand the program capabilities: the seccomp filter
denies making one, and so does bwrap's --disable-userns where runs have no
namespaces of their own), the worker as PID 1, the
sandbox's in-memory tree as /usr, read-only (memory_tree.py; with the
merged-/usr symlinks), which the worker first copies into a tmpfs of its own
and pivots into where runs have namespaces (memory_root.py), a fresh /proc (its
host-wide counters hidden: host_counters.py; each run's own has none) and minimal /dev, a size-capped
private tmpfs at /tmp (the work dir lives there), a small tmpfs /dev/shm,
everything else read-only, no /etc, /root or /home, a
cleared environment. Each run gets PID, IPC, network and mount namespaces of
its own, with fresh tmpfs mounts on /tmp and /dev/shm and a /proc of its own
processes, made by the supervisor and its judge
(worker/run_namespaces.py): the supervisor keeps CAP_SYS_ADMIN in the
sandbox's user namespace for that, and no mqueue filesystem is mounted (a
mount of the worker's namespace would be a path from every run's namespace
into one they all share). bwrap itself runs as an unprivileged per-slot uid when the host is
root (root inside would be real root), dies with its parent, and starts a new
session (no terminal injection). As root, each slot also gets its own cgroup
(cgroups.py): one memory and pids cap over all its processes, set per run; and
bwrap runs in a two-uid user namespace made for it (userns.py), so the
candidate runs under a uid apart from its supervisor and judge.
"""

from __future__ import annotations

import asyncio
import logging
import os
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
    source_frame,
    worker_command,
)
from env_servers.sandbox.host_counters import EmptyFile, bwrap_masks
from env_servers.sandbox.memory_tree import memory_tree
from env_servers.sandbox.uids import allocate_uid, running_as_root
from env_servers.sandbox.userns import (
    CANDIDATE_UID,
    MAPPED_UIDS,
    RUN_NAMESPACE_CAPABILITY,
    capability_arguments,
    helper_argv,
    map_and_release,
)
from env_servers.sandbox.worker_script import SPLIT, WorkerDesign, memory_root_source

log = logging.getLogger(__name__)

WORK_DIR = "/tmp/work"
STALE_CGROUP_WAIT = 1.0  # seconds a new worker's start waits for its predecessor's cgroup to empty
WORKER_ROOT_BYTES = 128 << 20  # each worker's own copy of the tree (about 75 MB), added to its slot's memory cap
SANDBOX_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": WORK_DIR,
    "TMPDIR": "/tmp",
    "LANG": "C.UTF-8",
}


def host_or_memory_usr(python: str) -> str:
    """What bwrap binds as /usr: the tree in memory (memory_tree.py), or, where no tmpfs has room, the host's /usr,
    said once in the log with what it leaves open."""
    tree = memory_tree(python)
    if tree is not None:
        return os.path.join(tree, "usr")
    log.warning("no tmpfs with room for the sandbox's /usr (set LATS_SANDBOX_TREE_DIR to one): runs read the host's "
                "/usr, whose page-cache state a run can change and a later run read (the sandbox README)")
    return "/usr"


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
    makes_run_namespaces = True

    def __init__(
        self,
        *,
        python: str = "/usr/bin/python3",
        tmp_bytes: int = 128 << 20,
        shm_bytes: int = 16 << 20,
        design: WorkerDesign = SPLIT,
    ):
        self.bwrap = find_bwrap()
        self.design = check_design(design)
        self.python = python
        self.tmp_bytes = tmp_bytes
        self.shm_bytes = shm_bytes
        self._uids: dict[int, int] = {}
        self._cgroups: dict[int, SlotCgroup] = {}  # each slot's current worker's
        self._stale_cgroups: list[SlotCgroup] = []  # retired workers', removed once empty
        self._workers_started: dict[int, int] = {}
        self._cgroups_available = running_as_root()
        self.pool_name = uuid.uuid4().hex[:12]
        self._source = source_frame(self.design)
        self._empty_file = EmptyFile()
        self.usr = host_or_memory_usr(python)
        self._memory_root = memory_root_source() if self.run_namespaces else None

    @property
    def candidate_uid_apart(self) -> bool:
        """True when the candidate runs under a uid of its own (the host is root; see userns.py).

        Only a design whose program runs apart from its judge has a candidate to give one.
        """
        return running_as_root() and self.design.verdict_isolated

    @property
    def uids_per_slot(self) -> int:
        return MAPPED_UIDS if self.candidate_uid_apart else 1

    def slot_uid(self, slot: int) -> int | None:
        if not running_as_root():
            return None
        if slot not in self._uids:
            self._uids[slot] = allocate_uid(self.uids_per_slot)
        return self._uids[slot]

    def slot_host_uids(self, slot: int) -> list[int]:
        first = self.slot_uid(slot)
        return [] if first is None else list(range(first, first + self.uids_per_slot))

    def argv(self) -> list[str]:
        environment = [arg for key, value in SANDBOX_ENV.items() for arg in ("--setenv", key, value)]
        extra = (RUN_NAMESPACE_CAPABILITY,) if self.run_namespaces else ()
        if self.candidate_uid_apart:  # in the helper's user namespace: bwrap makes every other namespace
            namespaces = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup"]
            namespaces += capability_arguments(extra)
            shared_dirs, worker = "01777", ["--candidate-uid", str(CANDIDATE_UID)]
        else:  # bwrap's own one-uid user namespace (its process holds no capability unless added)
            namespaces = ["--unshare-all", "--unshare-user", "--disable-userns"]
            namespaces += [arg for cap in extra for arg in ("--cap-add", cap)]
            shared_dirs, worker = "0700", []
        if self.run_namespaces:
            worker = worker + ["--run-namespaces"]
        argv = [
            self.bwrap,
            *namespaces,
            "--die-with-parent",
            "--new-session",
            "--as-pid-1",
            "--hostname", "sandbox",
            "--ro-bind", self.usr, "/usr",
            "--symlink", "usr/bin", "/bin",
            "--symlink", "usr/sbin", "/sbin",
            "--symlink", "usr/lib", "/lib",
            "--symlink", "usr/lib64", "/lib64",
            "--proc", "/proc",
            # A run with namespaces of its own sees a /proc of its own processes only (subset=pid), with
            # none of the host-wide files; masks here would stop it being mounted (the kernel lets a user
            # namespace mount a procfs only where one is fully visible), and they would guard nothing.
            *(bwrap_masks(self._empty_file.path()) if not self.run_namespaces else ()),
            "--dev", "/dev",
            "--size", str(self.shm_bytes), "--perms", "01777" if self.candidate_uid_apart else "0755", "--tmpfs", "/dev/shm",
            "--remount-ro", "/dev",
            "--size", str(self.tmp_bytes), "--perms", shared_dirs, "--tmpfs", "/tmp",
            *(("--dir", "/mnt") if self._memory_root else ()),  # where the worker's own root is made
            "--remount-ro", "/",
            "--chdir", "/tmp",
            "--clearenv",
            *environment,
            *self._own_root_command(),
            *worker_command(self.python),
            "--work", WORK_DIR, "--wipe", "/tmp", "--wipe", "/dev/shm", *design_arguments(self.design), *worker,
        ]  # fmt: skip
        return helper_argv(argv) if self.candidate_uid_apart else argv

    def _own_root_command(self) -> list[str]:
        """Where runs have namespaces of their own (the worker holds CAP_SYS_ADMIN over the sandbox's): the
        worker first copies the tree into a tmpfs of its own and pivots into it (memory_root.py), so no page
        of its /usr is another worker's, and no run can read how many processes map a page (the sandbox
        README). About 0.2 s more per worker start; its slot's memory cap grows by WORKER_ROOT_BYTES."""
        if not self._memory_root:
            return []
        return [self.python, "-I", "-c", self._memory_root, "--in-this-user-namespace",
                "--size", str(WORKER_ROOT_BYTES), "--"]

    def worker_cgroup(self, slot: int) -> SlotCgroup | None:
        """A fresh cgroup for the slot's next worker (None where this host allows none).

        The previous worker's cgroup is removed once its processes are gone:
        memory still charged to it (freed after them) is never the next worker's.
        """
        previous = self._cgroups.pop(slot, None)
        if previous is not None:
            self._stale_cgroups.append(previous)
        self._stale_cgroups = [cgroup for cgroup in self._stale_cgroups if not cgroup.remove()]
        if not self._cgroups_available:
            return None
        number = self._workers_started[slot] = self._workers_started.get(slot, -1) + 1
        cgroup = create_slot_cgroup(self.pool_name, slot, number, WORKER_ROOT_BYTES if self._memory_root else 0)
        if cgroup is None:
            self._cgroups_available = False  # said once (logged); per-process caps from now on
            return None
        self._cgroups[slot] = cgroup
        return cgroup

    async def start(self, slot: int) -> WorkerChannel:
        previous = self._cgroups.get(slot)
        if previous is not None:  # a retired worker's processes may still be exiting: off the event loop
            await asyncio.to_thread(previous.remove_when_empty, STALE_CGROUP_WAIT)
        apart = self.candidate_uid_apart  # the helper starts as root and maps the slot's uids itself
        channel = await start_subprocess_worker(
            self.argv(), uid=None if apart else self.slot_uid(slot), env={"PATH": "/usr/bin:/bin"},
            cgroup=self.worker_cgroup(slot),
        )
        try:
            if apart:
                await map_and_release(channel.process, self.slot_uid(slot))
            await channel.send(self._source)
        except (SandboxUnavailable, OSError) as error:
            await channel.kill()
            raise SandboxUnavailable(f"{error}; its stderr: {channel.diagnostics().strip() or '(empty)'}") from None
        return channel

    async def aclose(self) -> None:
        self._empty_file.remove()
        if self._cgroups or self._stale_cgroups:
            await asyncio.to_thread(remove_pool_cgroups, self.pool_name)
