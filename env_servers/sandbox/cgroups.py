"""A memory and process cap over all of a slot's processes, and how to tell it was hit.

Each bwrap worker gets a cgroup of its own (cgroup v2 with the memory and
pids controllers, else the v1 `memory` and `pids` hierarchies), which it and
so every process of every run it judges is started in; a slot's next worker
gets a fresh one, so memory a retired worker left charged (tmpfs and shared
memory freed after its processes are gone) never counts against a later run.
A worker whose runs leave memory charged beyond what it held before its first
run (`SlotCgroup.memory_beyond`) is retired by the pool. Runs of a slot never
overlap, so before each run the pool sets the caps from that run's limits:
the memory cap is the run's `memory_bytes` plus `JUDGE_ALLOWANCE` for the
supervisor and the judge, over every process together (not per process);
the pids cap is the run's `max_processes` plus the sandbox's own processes.
A run whose processes the kernel's OOM killer stopped reads as "memory": the
slot's OOM-kill count rose during the run.

A Docker container already is such a cgroup (its memory limit); `DockerCgroup`
reads its OOM-kill count and the memory a run left charged to it. Creating cgroups needs root (or a delegated
subtree); where none can be made, `create_slot_cgroup` returns None and the
pool falls back to a per-process cap (`per_process_limits`).
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
JUDGE_ALLOWANCE = 128 << 20
OWN_PROCESSES = 4  # bwrap, the supervisor, the judge and the candidate's first process
log = logging.getLogger(__name__)


def _write(path: Path, value: str) -> None:
    with open(path, "w") as handle:
        handle.write(value)


def _oom_kills(path: Path, key: str) -> int:
    try:
        for line in path.read_text().splitlines():
            name, _, count = line.partition(" ")
            if name == key:
                return int(count)
    except (OSError, ValueError):
        pass
    return 0


def memory_pinned(stat_file: Path, version: int) -> int:
    """Bytes a memory cgroup holds that reclaim cannot take back: anonymous memory and shared
    memory or tmpfs pages (page cache, which the kernel reclaims under the cap, is left out);
    0 where the counters cannot be read."""
    keys = ("anon", "shmem") if version == 2 else ("total_rss", "total_shmem")
    try:
        stats = dict(line.split() for line in stat_file.read_text().splitlines())
        return sum(int(stats.get(key, 0)) for key in keys)
    except (OSError, ValueError):
        return 0


class CgroupMemory:
    """What a cgroup's memory controller says: the memory it pins, against a baseline, and its OOM kills.

    `directories[0]` is the memory controller's directory (empty: nothing to
    read, every figure 0).
    """

    def __init__(self, directories: list[Path], version: int):
        self.directories = directories
        self.version = version
        self._baseline: int | None = None

    def memory_pinned(self) -> int:
        return memory_pinned(self.directories[0] / "memory.stat", self.version) if self.directories else 0

    def note_baseline(self) -> None:
        """What the worker holds before its first run: later runs are measured against it."""
        self._baseline = self.memory_pinned()

    def memory_beyond(self) -> int:
        """Pinned bytes beyond the baseline now (0 before a baseline is noted)."""
        if self._baseline is None:
            return 0
        return max(0, self.memory_pinned() - self._baseline)

    def oom_kills(self) -> int:
        if not self.directories:
            return 0
        if self.version == 2:
            return _oom_kills(self.directories[0] / "memory.events", "oom_kill")
        return _oom_kills(self.directories[0] / "memory.oom_control", "oom_kill")


class SlotCgroup(CgroupMemory):
    """The cgroup(s) of one slot: `procs_files` to join, caps to set, and what CgroupMemory reads.

    `root_bytes`: memory the worker holds for its whole life beyond its processes (its own copy of the
    sandbox's tree, on a tmpfs charged here), added to every run's cap.
    """

    def __init__(self, directories: list[Path], version: int, root_bytes: int = 0):
        super().__init__(directories, version)
        self.root_bytes = root_bytes
        self._caps: tuple[int, int] | None = None  # the caps last written

    @property
    def procs_files(self) -> list[str]:
        return [str(directory / "cgroup.procs") for directory in self.directories]

    def set_caps(self, memory_bytes: int, max_processes: int) -> None:
        """Cap the slot's processes together for the next run (no write when the caps are unchanged)."""
        if self._caps == (memory_bytes, max_processes):
            return
        self._write_caps(memory_bytes, max_processes)
        self._caps = (memory_bytes, max_processes)

    def _write_caps(self, memory_bytes: int, max_processes: int) -> None:
        memory = str(memory_bytes + JUDGE_ALLOWANCE + self.root_bytes)
        pids = str(max_processes + OWN_PROCESSES)
        if self.version == 2:
            (directory,) = self.directories
            _write(directory / "memory.max", memory)
            _write(directory / "memory.swap.max", "0")
            _write(directory / "pids.max", pids)
            return
        memory_dir, pids_dir = self.directories
        # memory+swap may never be below memory: raising, it goes first; lowering, last
        limit, with_swap = memory_dir / "memory.limit_in_bytes", memory_dir / "memory.memsw.limit_in_bytes"
        if not with_swap.exists():  # swap accounting off: no swap to escape into either
            _write(limit, memory)
        elif int(limit.read_text()) < int(memory):
            _write(with_swap, memory)
            _write(limit, memory)
        else:
            _write(limit, memory)
            _write(with_swap, memory)
        _write(pids_dir / "pids.max", pids)

    def remove_when_empty(self, wait_seconds: float) -> bool:
        """remove(), tried until it succeeds or `wait_seconds` pass; False if processes are still dying."""
        give_up = time.monotonic() + wait_seconds
        while not self.remove():
            if time.monotonic() >= give_up:
                return False
            time.sleep(0.01)
        return True

    def remove(self) -> bool:
        """Remove the cgroup's directories; False while processes are still dying in them."""
        removed = True
        for directory in self.directories:
            try:
                directory.rmdir()
            except FileNotFoundError:
                pass
            except OSError:
                removed = False  # the next cleanup takes it
        return removed


FALLBACK_PROCESS_BYTES = 256 << 20


def per_process_limits(memory_bytes: int, max_processes: int) -> tuple[int, int]:
    """(bytes per process, processes) whose product stays within `memory_bytes`, without a cgroup.

    The cap is the limit divided by the processes allowed, and the processes
    allowed shrink so that no process gets less than 256 MB (a Python
    interpreter needs about that much address space to do anything).
    """
    processes = max(1, min(max_processes, memory_bytes // FALLBACK_PROCESS_BYTES))
    return memory_bytes // processes, processes


def _v2_root() -> Path | None:
    for candidate in (ROOT, ROOT / "unified"):
        controllers = candidate / "cgroup.controllers"
        if controllers.exists() and {"memory", "pids"} <= set(controllers.read_text().split()):
            return candidate
    return None


def create_slot_cgroup(pool_name: str, slot: int, worker: int = 0, root_bytes: int = 0) -> SlotCgroup | None:
    """Make a cgroup for the slot's `worker`-th worker (v2, else v1 memory + pids); None where
    this host allows neither. `root_bytes`: see SlotCgroup."""
    name = f"lats-sandbox-{os.getpid()}-{pool_name}"
    leaf = f"slot{slot}-w{worker}"
    try:
        v2 = _v2_root()
        if v2 is not None:
            parent = v2 / name
            parent.mkdir(exist_ok=True)
            _write(parent / "cgroup.subtree_control", "+memory +pids")
            directory = parent / leaf
            directory.mkdir(exist_ok=True)
            return SlotCgroup([directory], 2, root_bytes)
        memory, pids = ROOT / "memory", ROOT / "pids"
        if (memory / "memory.limit_in_bytes").exists() and (pids / "cgroup.procs").exists():
            directories = [memory / name / leaf, pids / name / leaf]
            for directory in directories:
                directory.mkdir(parents=True, exist_ok=True)
            return SlotCgroup(directories, 1, root_bytes)
    except OSError as error:
        log.info("no cgroup for sandbox slots here (%s): per-process memory caps instead", error)
    return None


def remove_pool_cgroups(pool_name: str, wait_seconds: float = 3.0) -> bool:
    """Remove the pool's cgroup directories once their processes are gone; False if some remain."""
    name = f"lats-sandbox-{os.getpid()}-{pool_name}"
    parents = [ROOT / name, ROOT / "unified" / name, ROOT / "memory" / name, ROOT / "pids" / name]
    give_up = time.monotonic() + wait_seconds
    while True:
        remaining = []
        for parent in parents:
            if not parent.is_dir():
                continue
            for directory in [child for child in parent.iterdir() if child.is_dir()] + [parent]:
                try:
                    directory.rmdir()
                except OSError:  # the killed processes are still exiting
                    remaining.append(directory)
        if not remaining or time.monotonic() >= give_up:
            return not remaining
        time.sleep(0.05)


class DockerCgroup(CgroupMemory):
    """A container's own memory cgroup, found on the host: its OOM-kill count and the memory its runs leave.

    Docker sets the caps (DockerChannel.apply_limits); `directories` is empty
    where the host's cgroup file system does not show the container's.
    """

    def __init__(self, container_id: str):
        candidates = [
            (ROOT / "memory" / "docker" / container_id, 1),
            (ROOT / "system.slice" / f"docker-{container_id}.scope", 2),
            (ROOT / "docker" / container_id, 2),
        ]
        found = [(directory, version) for directory, version in candidates if (directory / "memory.stat").exists()]
        super().__init__([found[0][0]] if found else [], found[0][1] if found else 2)
