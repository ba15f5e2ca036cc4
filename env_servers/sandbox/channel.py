"""How the host talks to one running worker, whatever sandbox it lives in."""

from __future__ import annotations

import abc
import asyncio
import os
import signal
from collections import deque

from env_servers.sandbox.worker_script import SPLIT, WorkerDesign, worker_source

STDERR_TAIL_BYTES = 4096

# The sandbox's python3 runs this with -c; the worker's source follows as the first frame on its stdin.
# A forked child compiles it and hands back the code object (marshal), so the long-lived worker holds
# none of what compiling left behind: every fork of it copies half the pages it otherwise would.
BOOTSTRAP = """
import marshal, os, struct, sys
def read(fd, size):
    data = bytearray()
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            raise SystemExit("the sandbox worker's source did not arrive")
        data += chunk
    return bytes(data)
source = read(0, struct.unpack(">I", read(0, 4))[0])
code_r, code_w = os.pipe()
if os.fork() == 0:
    try:
        data = marshal.dumps(compile(source, "<sandbox worker>", "exec"))
        while data:
            data = data[os.write(code_w, data):]
    finally:
        os._exit(0)
os.close(code_w)
del source
data = bytearray()
while True:
    chunk = os.read(code_r, 1 << 20)
    if not chunk:
        break
    data += chunk
os.close(code_r)
os.wait()
if not data:
    raise SystemExit("the sandbox worker's source did not compile")
code = marshal.loads(bytes(data))
del data
exec(code, {"__name__": "__main__", "__builtins__": __builtins__})
"""


def worker_command(python: str) -> list[str]:
    """The sandbox's python3 running the bootstrap; the worker's arguments follow, `source_frame()` goes to its stdin."""
    return [python, "-I", "-c", BOOTSTRAP]


def source_frame(design: WorkerDesign) -> bytes:
    """The source of `design`'s worker as the bootstrap reads it: a 4-byte big-endian length, then UTF-8."""
    body = worker_source(design).encode()
    return len(body).to_bytes(4, "big") + body


class WorkerChannel(abc.ABC):
    """A started worker: frames go in with `send`, come out of `reader`; `kill` ends it."""

    reader: asyncio.StreamReader
    host_pids: tuple[int, ...] = ()

    @abc.abstractmethod
    async def send(self, data: bytes) -> None: ...

    def alive(self) -> bool:
        """False once the worker is known to have exited (its channel reached EOF)."""
        return not self.reader.at_eof()

    @abc.abstractmethod
    async def kill(self) -> None:
        """Stop the worker and everything in its sandbox; idempotent."""

    def diagnostics(self) -> str:
        """What the worker printed on stderr (the tail), to explain a failed start."""
        return ""

    @property
    def memory_capped(self) -> bool:
        """True if one memory cap covers all the worker's processes together (a cgroup)."""
        return False

    async def apply_limits(self, memory_bytes: int, max_processes: int) -> None:
        """Set the all-process caps for the next run (a no-op without a cgroup)."""

    def oom_kills(self) -> int:
        """How many processes the kernel's OOM killer has stopped under the cap so far."""
        return 0

    def note_memory_baseline(self) -> None:
        """Before the worker's first run: what it holds, that later runs are held to."""

    def memory_left_behind(self) -> int:
        """Bytes a finished run left pinned under the cap beyond the baseline (0 uncapped)."""
        return 0


class SubprocessChannel(WorkerChannel):
    """A worker started as a local subprocess (bwrap, or the insecure process backend)."""

    def __init__(self, process: asyncio.subprocess.Process, cgroup=None):
        self.process = process
        self.cgroup = cgroup
        self.reader = process.stdout
        self.host_pids = (process.pid,)
        self._stderr_tail: deque[bytes] = deque()
        self._stderr_task = asyncio.ensure_future(self._drain_stderr())

    async def _drain_stderr(self) -> None:
        kept = 0
        while chunk := await self.process.stderr.read(4096):
            self._stderr_tail.append(chunk)
            kept += len(chunk)
            while kept > STDERR_TAIL_BYTES and len(self._stderr_tail) > 1:
                kept -= len(self._stderr_tail.popleft())

    def alive(self) -> bool:
        return self.process.returncode is None and not self.reader.at_eof()

    async def send(self, data: bytes) -> None:
        self.process.stdin.write(data)
        await self.process.stdin.drain()

    async def kill(self) -> None:
        # The group outlives a worker that has already exited and been reaped, and
        # Linux keeps its id from reuse while any member lives: kill it regardless.
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        await self.process.wait()
        try:
            await asyncio.wait_for(self._stderr_task, 1.0)
        except (asyncio.TimeoutError, asyncio.CancelledError):
            pass

    def diagnostics(self) -> str:
        return b"".join(self._stderr_tail).decode("utf-8", "replace")[-STDERR_TAIL_BYTES:]

    @property
    def memory_capped(self) -> bool:
        return self.cgroup is not None

    async def apply_limits(self, memory_bytes: int, max_processes: int) -> None:
        if self.cgroup is not None:
            await until_memory_is_freed(lambda: self.cgroup.set_caps(memory_bytes, max_processes))

    def oom_kills(self) -> int:
        return self.cgroup.oom_kills() if self.cgroup is not None else 0

    def note_memory_baseline(self) -> None:
        if self.cgroup is not None:
            self.cgroup.note_baseline()

    def memory_left_behind(self) -> int:
        return self.cgroup.memory_beyond() if self.cgroup is not None else 0


CAP_RETRY_SECONDS = 5.0


class CapsNotSet(RuntimeError):
    """A slot's memory cap could not be lowered: memory of a finished run was still charged to it."""


async def until_memory_is_freed(set_caps, seconds: float = CAP_RETRY_SECONDS) -> None:
    """Call `set_caps` until it succeeds; CapsNotSet after `seconds`.

    The kernel refuses (EBUSY) a memory cap below what the cgroup holds. A
    retired worker's namespaces, and the shared memory and tmpfs pages they
    hold, are freed asynchronously after its processes are gone, so a cap the
    next run lowers can meet that memory for a few milliseconds.
    """
    loop = asyncio.get_running_loop()
    give_up = loop.time() + seconds
    while True:
        try:
            set_caps()
            return
        except OSError as error:
            if loop.time() >= give_up:
                raise CapsNotSet(f"the slot's caps could not be set ({error})") from error
        await asyncio.sleep(0.02)


SETPRIV = "/usr/bin/setpriv"
JOIN_CGROUPS = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 111; shift; done; shift; exec "$@"'


async def start_subprocess_worker(
    argv: list[str], *, uid: int | None, env: dict[str, str], cgroup=None
) -> SubprocessChannel:
    """Start `argv` in its own session, dropping to `uid` (its own group, no extra groups) if given.

    With a `cgroup` (cgroups.SlotCgroup) a shell joins it first, so the worker
    and everything it ever starts are inside before the first instruction runs.

    The uid is dropped by `setpriv` (util-linux) rather than subprocess's
    user=/group= arguments: those make CPython fork() instead of vfork(), and
    gRPC's fork handlers then crash the child when this runs inside a server.
    """
    if uid is not None:
        argv = [SETPRIV, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", *argv]
    if cgroup is not None:
        argv = ["/bin/sh", "-c", JOIN_CGROUPS, "sh", *cgroup.procs_files, "--", *argv]
    process = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
        cwd="/",
        start_new_session=True,
        limit=1 << 20,
    )
    return SubprocessChannel(process, cgroup)


def check_design(design: WorkerDesign) -> WorkerDesign:
    """`design` if it is a WorkerDesign, else TypeError (a design is handed over, never named)."""
    if not isinstance(design, WorkerDesign):
        raise TypeError(f"design must be a worker_script.WorkerDesign (SPLIT is the production one), not {design!r}")
    return design


def design_arguments(design: WorkerDesign) -> list[str]:
    """The worker's command-line flags for a secure backend.

    Every run is checked for what it left behind (--pristine, see
    pristine.py); a design that can load the seccomp filter loads it.
    """
    return ["--design", design.name, "--pristine"] + (["--seccomp"] if design.seccomp else [])


class Launcher(abc.ABC):
    """Starts workers for a pool, one per slot.

    design: the worker program (worker_script.WorkerDesign): SPLIT, the
    judge and the program in separate processes, unless a caller hands
    another (the tests' insecure control). `verdict_isolated` says whether
    the design computes the verdict apart from the program; `secure`, whether
    the backend isolates anything at all; `makes_run_namespaces`, whether the
    backend can give each run namespaces of its own (bwrap, docker).
    """

    name: str = ""
    secure: bool = True
    makes_run_namespaces: bool = False
    design: WorkerDesign = SPLIT

    @property
    def verdict_isolated(self) -> bool:
        return self.design.verdict_isolated

    @property
    def run_namespaces(self) -> bool:
        """True when each run gets namespaces of its own: a backend that makes them and a design that asks,
        with the filter. The insecure control (the shared design) gets none, nor the capability it takes."""
        design = self.design
        return self.makes_run_namespaces and design.run_namespaces and design.verdict_isolated and design.seccomp

    @abc.abstractmethod
    async def start(self, slot: int) -> WorkerChannel: ...

    def slot_uid(self, slot: int) -> int | None:
        """The host uid the slot's supervisor runs as (None: the caller's own)."""
        return None

    @property
    def candidate_uid_apart(self) -> bool:
        """True when the candidate runs under a uid apart from its supervisor and judge."""
        return False

    def slot_host_uids(self, slot: int) -> list[int]:
        """Every host uid the slot's processes may run as (the candidate's included)."""
        uid = self.slot_uid(slot)
        return [] if uid is None else [uid]

    async def aclose(self) -> None:
        """Release what the launcher holds (images, clients); idempotent."""
