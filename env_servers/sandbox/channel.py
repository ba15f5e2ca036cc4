"""How the host talks to one running worker, whatever sandbox it lives in."""

from __future__ import annotations

import abc
import asyncio
import os
import signal
from collections import deque
from importlib import resources

STDERR_TAIL_BYTES = 4096


def worker_source() -> str:
    """The in-sandbox worker program, passed to the sandbox's python3 with -c."""
    return resources.files("env_servers.sandbox").joinpath("worker_main.py").read_text()


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


class SubprocessChannel(WorkerChannel):
    """A worker started as a local subprocess (bwrap, or the insecure process backend)."""

    def __init__(self, process: asyncio.subprocess.Process):
        self.process = process
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
        if self.process.returncode is None:
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


SETPRIV = "/usr/bin/setpriv"


async def start_subprocess_worker(
    argv: list[str], *, uid: int | None, env: dict[str, str]
) -> SubprocessChannel:
    """Start `argv` in its own session, dropping to `uid` (its own group, no extra groups) if given.

    The uid is dropped by `setpriv` (util-linux) rather than subprocess's
    user=/group= arguments: those make CPython fork() instead of vfork(), and
    gRPC's fork handlers then crash the child when this runs inside a server.
    """
    if uid is not None:
        argv = [SETPRIV, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", *argv]
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
    return SubprocessChannel(process)


class Launcher(abc.ABC):
    """Starts workers for a pool, one per slot."""

    name: str = ""
    secure: bool = True

    @abc.abstractmethod
    async def start(self, slot: int) -> WorkerChannel: ...

    def slot_uid(self, slot: int) -> int | None:
        """The host uid the slot's sandboxed processes run as (None: the caller's own)."""
        return None

    async def aclose(self) -> None:
        """Release what the launcher holds (images, clients); idempotent."""
