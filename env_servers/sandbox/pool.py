"""A pool of warm workers, one per slot, each inside its own long-lived sandbox.

A run takes a free slot, sends the request with a fresh nonce, and waits for the
reply at most the run's wall-clock limit plus a grace period. A worker that
dies, stops answering or answers out of turn is killed and restarted; so is a
worker whose reply says it retires (the run left something behind in the
sandbox, see pristine.py); a worker is also recycled after `recycle_after` runs.
A run whose warm worker turns out dead or out of turn before answering it is
retried once on a fresh worker, so one run's damage never reads as another's.
"""

from __future__ import annotations

import asyncio
import logging
import math
import secrets
import time
from dataclasses import asdict

from env_servers.sandbox.base import (
    STATUS_CRASHED,
    STATUS_MEMORY,
    STATUS_TIMEOUT,
    RunRequest,
    RunResult,
    Sandbox,
    SandboxUnavailable,
)
from env_servers.sandbox.cgroups import per_process_limits
from env_servers.sandbox.channel import CapsNotSet, Launcher, WorkerChannel
from env_servers.sandbox.framing import WorkerLost, encode_request, read_frame
from env_servers.sandbox.results import build_result, lost_result

DEFAULT_RECYCLE_AFTER = 2000
DEFAULT_START_TIMEOUT = 60.0
DEFAULT_REPLY_GRACE = 3.0
READY_FRAME_BYTES = 4096
MAX_SOURCE_CHARS = 8 << 20
# Pinned memory (anonymous, shared, tmpfs) a run may leave in its worker's cgroup
# beyond the worker's own before the worker is retired: more would shrink the
# next run's cap (round three: a right 150 MB program was judged `memory`).
LEFTOVER_MEMORY_BYTES = 16 << 20


def validate(request: RunRequest) -> None:
    """Raise ValueError, saying what to fix, for a request no backend should run."""
    if not isinstance(request.program, str):
        raise ValueError("RunRequest.program must be a str of Python source")
    for field in ("tests", "untrusted_tests"):
        tests = getattr(request, field)
        if not isinstance(tests, (tuple, list)) or not all(isinstance(t, str) for t in tests):
            raise ValueError(f"RunRequest.{field} must be a tuple of str (one assert or block each)")
    if not isinstance(request.setup, str):
        raise ValueError("RunRequest.setup must be a str of Python source (the task's own helpers)")
    if not all(isinstance(name, str) and name.isidentifier() for name in request.entry_points):
        raise ValueError("RunRequest.entry_points must be a tuple of Python identifiers")
    size = len(request.program) + len(request.setup) + sum(len(test) for test in request.all_tests)
    if size > MAX_SOURCE_CHARS:
        raise ValueError(f"program and tests hold {size} characters; the limit is {MAX_SOURCE_CHARS}")
    limits = request.limits
    if not (math.isfinite(limits.wall_seconds) and limits.wall_seconds > 0):
        raise ValueError("Limits.wall_seconds must be a positive number")
    for field in ("cpu_seconds", "memory_bytes", "max_processes", "max_output_bytes", "max_file_bytes"):
        if int(getattr(limits, field)) <= 0:
            raise ValueError(f"Limits.{field} must be positive")


log = logging.getLogger(__name__)
_LOST = object()  # a run whose worker died (or answered out of turn) before replying


class _Slot:
    """One worker position: holds the current worker and restarts it when needed."""

    def __init__(self, pool: "WorkerPool", index: int):
        self.pool = pool
        self.index = index
        self.channel: WorkerChannel | None = None
        self.runs = 0
        self.starts = 0
        self.lost_reason = ""

    async def ensure_started(self) -> WorkerChannel:
        if self.channel is not None and not self.channel.alive():
            await self.discard()
        if self.channel is not None:
            return self.channel
        channel = await self.pool.launcher.start(self.index)
        try:
            ready = await asyncio.wait_for(
                read_frame(channel.reader, READY_FRAME_BYTES), self.pool.start_timeout
            )
            if ready.get("ready") is not True:
                raise WorkerLost(f"unexpected first frame {ready!r}")
        except (WorkerLost, asyncio.TimeoutError) as error:
            await channel.kill()
            raise SandboxUnavailable(
                f"the {self.pool.name} sandbox worker did not start ({error or 'no answer in time'}); "
                f"its stderr: {channel.diagnostics().strip() or '(empty)'}"
            ) from error
        self.channel, self.runs = channel, 0
        self.starts += 1
        return channel

    async def discard(self) -> None:
        channel, self.channel = self.channel, None
        if channel is not None:
            await channel.kill()

    async def run(self, request: RunRequest) -> RunResult:
        was_warm = self.channel is not None and self.runs > 0
        result = await self._run_once(request)
        if result is _LOST and was_warm:  # the warm worker had died while idle, or held an earlier frame
            result = await self._run_once(request)  # retry once on a new one
        if result is _LOST:
            return lost_result(request, STATUS_CRASHED, self.lost_reason, 0.0)
        return result

    async def _run_once(self, request: RunRequest):
        """One attempt: the run's result, or _LOST when the worker was gone or out of turn (worth a retry)."""
        channel = await self.ensure_started()
        nonce = secrets.token_hex(16)
        limits = await self._run_limits(channel, request)
        if isinstance(limits, RunResult):
            return limits
        oom_kills = channel.oom_kills()
        if self.runs == 0:
            channel.note_memory_baseline()
        started = time.monotonic()
        try:
            await channel.send(request_frame(request, nonce, limits))
            reply_limit = 12 * request.limits.max_output_bytes + (4 << 20)
            reply = await asyncio.wait_for(
                read_frame(channel.reader, reply_limit), request.limits.wall_seconds + self.pool.reply_grace
            )
        except asyncio.TimeoutError:
            await self.discard()
            return lost_result(
                request,
                STATUS_TIMEOUT,
                "the sandbox worker did not answer in time; it was restarted",
                time.monotonic() - started,
            )
        except (WorkerLost, ConnectionError) as error:
            out_of_memory = channel.oom_kills() > oom_kills
            await self.discard()
            if out_of_memory:
                return lost_result(
                    request, STATUS_MEMORY, "killed by the memory limit; the worker was restarted",
                    time.monotonic() - started,
                )  # fmt: skip
            self.lost_reason = f"the sandbox worker died during the run ({error}); it was restarted"
            return _LOST
        if channel.oom_kills() > oom_kills:
            reply["oom_killed"] = True
        return await self._judged(request, reply, nonce, started)

    async def _run_limits(self, channel: WorkerChannel, request: RunRequest) -> dict | RunResult:
        """The limits the worker applies: all-process caps set on the slot's cgroup, or split per process.

        A RunResult (crashed, not started) when the slot's caps could not be set.
        """
        limits = asdict(request.limits)
        if channel.memory_capped:
            try:
                await channel.apply_limits(request.limits.memory_bytes, request.limits.max_processes)
            except CapsNotSet as error:
                await self.discard()
                return lost_result(request, STATUS_CRASHED, f"{error}; the run was not started", 0.0)
        elif self.pool.secure:  # no cap over all processes: split the limit between them
            limits["memory_bytes"], limits["max_processes"] = per_process_limits(
                request.limits.memory_bytes, request.limits.max_processes
            )
        return limits

    def _holds_leftover_memory(self) -> bool:
        channel = self.channel
        left = channel.memory_left_behind() if channel is not None else 0
        if left > LEFTOVER_MEMORY_BYTES:
            log.info("a run left %d MB pinned in its worker's cgroup; the worker is retired", left >> 20)
            return True
        return False

    async def _judged(self, request: RunRequest, reply: dict, nonce: str, started: float):
        """The result a worker's reply stands for (or _LOST); the worker is replaced when it must be."""
        # The run left something behind (the worker says so, or memory stays pinned
        # under the cap): a fresh worker, in a fresh cgroup, for the next.
        retires = bool(reply.get("retire")) or self._holds_leftover_memory()
        if reply.get("lost") is True:  # the program killed its judge, or the judge overran
            await self.discard()
            status = STATUS_CRASHED
            if reply.get("oom_killed"):
                status = STATUS_MEMORY
            elif reply.get("timed_out") is True:
                status = STATUS_TIMEOUT
            return lost_result(
                request,
                status,
                str(reply.get("detail", "the run's judge ended before replying"))[:500],
                time.monotonic() - started,
            )
        if reply.get("nonce") != nonce:  # stale or forged: not this run's, so no verdict of it
            await self.discard()
            self.lost_reason = "the sandbox worker answered out of turn; it was restarted"
            return _LOST
        self.runs += 1
        if retires or self.runs >= self.pool.recycle_after:
            await self.discard()
        return build_result(request, reply, nonce)


def request_frame(request: RunRequest, nonce: str, limits: dict) -> bytes:
    """The run's request as the worker reads it (framing.encode_request)."""
    return encode_request(
        {
            "nonce": nonce,
            "program": request.program,
            "setup": request.setup,
            "tests": list(request.tests),
            "untrusted_tests": list(request.untrusted_tests),
            "limits": limits,
            "entry_points": list(request.entry_points),
        },
    )


class WorkerPool(Sandbox):
    """A `Sandbox` backed by `workers` warm workers started by `launcher`."""

    def __init__(
        self,
        launcher: Launcher,
        *,
        workers: int = 2,
        recycle_after: int = DEFAULT_RECYCLE_AFTER,
        start_timeout: float = DEFAULT_START_TIMEOUT,
        reply_grace: float = DEFAULT_REPLY_GRACE,
    ):
        if workers < 1:
            raise ValueError("workers must be at least 1")
        if recycle_after < 1:
            raise ValueError("recycle_after must be at least 1")
        self.launcher = launcher
        self.name = launcher.name
        self.secure = launcher.secure
        self.verdict_isolated = launcher.verdict_isolated
        self.candidate_uid_apart = launcher.candidate_uid_apart
        self.recycle_after = recycle_after
        self.start_timeout = start_timeout
        self.reply_grace = reply_grace
        self.slots = [_Slot(self, index) for index in range(workers)]
        self._free: asyncio.Queue[_Slot] | None = None
        self._closed = False

    def _queue(self) -> asyncio.Queue:
        if self._free is None:
            self._free = asyncio.Queue()
            for slot in self.slots:
                self._free.put_nowait(slot)
        return self._free

    async def start(self) -> None:
        """Start every worker now (otherwise each starts on its first run)."""
        await asyncio.gather(*(slot.ensure_started() for slot in self.slots))

    async def run(self, request: RunRequest) -> RunResult:
        if self._closed:
            raise RuntimeError(f"the {self.name} sandbox is closed")
        validate(request)
        free = self._queue()
        slot = await free.get()
        try:
            return await slot.run(request)
        except asyncio.CancelledError:
            await asyncio.shield(slot.discard())  # the worker may be mid-run
            raise
        finally:
            free.put_nowait(slot)

    def host_uids(self) -> list[int]:
        """Every host uid the sandbox's processes may run as (for host-side checks)."""
        return [uid for slot in self.slots for uid in self.launcher.slot_host_uids(slot.index)]

    def slot_uids(self) -> list[int | None]:
        """Host uid of each slot's sandboxed processes (None: the caller's own uid)."""
        return [self.launcher.slot_uid(slot.index) for slot in self.slots]

    def worker_host_pids(self) -> list[int]:
        """Host pids of the running workers' sandbox processes (for host-side checks)."""
        return [pid for slot in self.slots if slot.channel for pid in slot.channel.host_pids]

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        await asyncio.gather(*(slot.discard() for slot in self.slots), return_exceptions=True)
        await self.launcher.aclose()
