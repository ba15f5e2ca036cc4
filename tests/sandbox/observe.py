"""Host-side observation of what a sandbox left behind (processes), independent of its own report."""

from __future__ import annotations

import os
import threading
import time

from env_servers.sandbox.pool import WorkerPool
from env_servers.sandbox.uids import processes_of_uid


def _parents() -> dict[int, int]:
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            parents[int(entry)] = int(fields[1])
    return parents


def running(pid: int) -> bool:
    """True if `pid` has not exited (a zombie has)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def descendants(roots: set[int]) -> set[int]:
    parents = _parents()
    found: set[int] = set()
    frontier = set(roots)
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier and pid not in found}
        found |= frontier
    return found


def _children(parents: dict[int, int], of: set[int]) -> set[int]:
    return {pid for pid, parent in parents.items() if parent in of}


def _worker_processes(sandbox: WorkerPool) -> set[int]:
    """The sandbox's own long-lived processes: the worker (and, for bwrap, bwrap itself; where runs have
    namespaces of their own, bwrap's and docker's, the process the worker's supervisor was forked from).

    A split-design worker keeps the next run's judge forked and waiting, and
    that judge its candidate and its tester: a sole child of the worker and
    its children, two at most and childless, count as the worker's own (a
    run's orphans are the worker's children, never the waiting judge's).
    Anything more is a leftover.
    """
    parents = _parents()
    roots = set(sandbox.worker_host_pids())
    workers = set(roots)
    if sandbox.name == "bwrap":  # bwrap runs the worker as its direct child (PID 1 inside)
        workers = _children(parents, roots)
        roots |= workers
    if sandbox.launcher.run_namespaces:
        # the worker went on in its sole child, PID 1 of a PID namespace of the worker's own
        workers = _children(parents, workers)
        roots |= workers
    if sandbox.verdict_isolated:
        for worker in workers:
            standby = _children(parents, {worker})
            if len(standby) == 1:
                roots |= standby
                forked = _children(parents, standby)
                if len(forked) <= 2 and not _children(parents, forked):
                    roots |= forked
    return roots


def sandbox_processes(sandbox: WorkerPool) -> set[int]:
    """Every host process belonging to the sandbox: descendants of its workers and its slot uids'."""
    found = descendants(set(sandbox.worker_host_pids()))
    for uid in sandbox.host_uids():
        if uid is not None:
            found |= set(processes_of_uid(uid))
    return found


def leftover_processes(sandbox: WorkerPool, settle_seconds: float = 3.0) -> list[str]:
    """Processes of the sandbox other than its workers, described for an assertion message.

    The judge replies before its supervisor has reaped the run (killed
    processes linger as zombies for a moment, and the supervisor may fork a
    short-lived cleaner), so this looks again until nothing is left or
    `settle_seconds` have passed; a real leftover outlives that.
    """
    give_up = time.monotonic() + settle_seconds
    while True:
        leftovers = sandbox_processes(sandbox) - _worker_processes(sandbox)
        if not leftovers or time.monotonic() >= give_up:
            break
        time.sleep(0.05)
    described = []
    for pid in sorted(leftovers):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                command = handle.read().replace(b"\0", b" ").decode(errors="replace")[:80]
        except OSError:
            continue
        described.append(f"{pid}: {command}")
    return described


class PeakCounter:
    """Samples the number of the sandbox's host processes while a run goes on.

    The worker forks the next run's judge as soon as it has replied, while
    the last run's processes may still wait to be reaped; that judge, its
    candidate and its tester are not the run's. So each sample keeps its
    pids, and on exit, once the sandbox has settled, the processes it keeps
    between runs are taken out of every sample before the peak is counted.
    """

    def __init__(self, sandbox: WorkerPool, interval: float = 0.02):
        self.sandbox = sandbox
        self.interval = interval
        self.peak = 0
        self._samples: list[set[int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self):
        while not self._stop.is_set():
            self._samples.append(sandbox_processes(self.sandbox) - _worker_processes(self.sandbox))
            self._stop.wait(self.interval)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc_info):
        self._stop.set()
        self._thread.join()
        leftover_processes(self.sandbox)  # waits for the run's processes to be reaped
        kept_between_runs = _worker_processes(self.sandbox)
        self.peak = max((len(sample - kept_between_runs) for sample in self._samples), default=0)
