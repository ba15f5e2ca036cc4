"""The INSECURE process backend: rlimits, a wall clock and a subreaper, no isolation.

Its worker is the split design's (the judge in a process apart from the
program), run without a PID namespace, seccomp filter, pristine checks or a
uid of the candidate's own; a caller may hand it another design, as the
hazard suites hand it their insecure control to show every forgery working.

The program can read and write whatever the invoking user can, reach the
network, and signal the judge (or, as root, read and patch it). For
development only; `make_sandbox` refuses it unless asked with
allow_insecure=True, and its `secure` flag is False so callers can label results.

Each worker gets a directory of its own, made when it starts and removed (with
the same iterative wipe the worker uses) when the pool starts the slot's next
worker or closes: a worker that could not empty its directory after a run
retires, and its successor never depends on that directory.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
from itertools import count

from env_servers.sandbox.channel import (
    Launcher,
    WorkerChannel,
    check_design,
    start_subprocess_worker,
    source_frame,
    worker_command,
)
from env_servers.sandbox.pristine import wipe
from env_servers.sandbox.worker_script import SPLIT, WorkerDesign

INSECURE_NOTE = "INSECURE: the 'process' sandbox isolates nothing (rlimits and a timeout only)"
log = logging.getLogger(__name__)


class ProcessLauncher(Launcher):
    name = "process"
    secure = False

    def __init__(self, *, python: str = sys.executable, design: WorkerDesign = SPLIT):
        log.warning(INSECURE_NOTE)
        self.design = check_design(design)
        self.python = python
        self._root: str | None = None
        self._source = source_frame(self.design)
        self._starts = count()
        self._slot_dirs: dict[int, str] = {}

    async def start(self, slot: int) -> WorkerChannel:
        if self._root is None:
            self._root = tempfile.mkdtemp(prefix="lats-insecure-sandbox-")
        previous = self._slot_dirs.pop(slot, None)
        if previous is not None:  # the slot's last worker is gone: its directory goes too
            remove_tree(previous)
        work = os.path.join(self._root, f"slot{slot}-{next(self._starts)}")
        os.makedirs(work, mode=0o700)
        self._slot_dirs[slot] = work
        environment = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": work,
            "TMPDIR": work,
            "LANG": "C.UTF-8",
        }
        argv = [*worker_command(self.python), "--work", os.path.join(work, "run"), "--wipe", work]
        argv += ["--design", self.design.name]  # no --seccomp, no --pristine: nothing here is isolated
        channel = await start_subprocess_worker(argv, uid=None, env=environment)
        await channel.send(self._source)
        return channel

    async def aclose(self) -> None:
        if self._root is not None:
            remove_tree(self._root)


def remove_tree(path: str) -> None:
    """Remove `path` and everything below it, however deep (a run may leave any tree)."""
    wipe(path)
    shutil.rmtree(path, ignore_errors=True)
