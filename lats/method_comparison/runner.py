"""Runs bench jobs against one or many planners, a bounded number at a time.

Each job is one Solve call; its `finished` event becomes a record, stored the
moment it arrives (`on_record`), so every job yields exactly one record. The
planner address may name several replicas (lats_runtime.channels): calls are
spread round-robin. A job the planner refuses (a bad config, an unknown task)
becomes an error record. When the planner is busy (RESOURCE_EXHAUSTED) the
job waits and retries. When its planner dies or shuts down mid-search
(UNAVAILABLE), the job runs again from the start on another replica; its lost
run stays in the run store, marked interrupted. Only when no planner answers
for `unreachable_after` seconds does the bench stop (PlannerUnreachable)
instead of filling the store with errors; the finished jobs are kept, and
--resume continues.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence

from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_delay, wait_exponential

from lats_client import (AsyncPlanner, LatsError, NotAPlanner, ServiceBusy,
                         ServiceUnavailable)
from lats_client.events import Backpropagated, Event, NodeAdded, NodeEvaluated, TerminalReached

from lats.method_comparison.records import error_record, record_from_result
from lats.method_comparison.variants import Job

log = logging.getLogger(__name__)

UNREACHABLE_AFTER_SECONDS = 120.0


class PlannerUnreachable(RuntimeError):
    """No planner answered for too long; the bench cannot go on."""


class _Lost(Exception):
    """The job's planner went away mid-search; the job must run again."""

    def __init__(self, error: LatsError, run_id: str):
        super().__init__(str(error))
        self.run_id = run_id


def _nodes_of(event: Event) -> tuple:
    """The tree nodes an event carries, as they stand after it."""
    if isinstance(event, (NodeAdded, NodeEvaluated, TerminalReached)):
        return (event.node,)
    if isinstance(event, Backpropagated):
        return event.path
    return ()


async def _solve_once(planner: AsyncPlanner, env_address: str, job: Job, session: int,
                      timeout: float, busy_wait: float) -> dict:
    """One Solve of the job; _Lost when no planner (or not its planner) answers."""
    search = None
    try:
        async for attempt in AsyncRetrying(retry=retry_if_exception_type(ServiceBusy),
                                           reraise=True,
                                           wait=wait_exponential(multiplier=0.5, max=10),
                                           stop=stop_after_delay(busy_wait)):
            with attempt:
                search = planner.solve(env_address, job.task_id, timeout=timeout,
                                       config=job.search_config())
                nodes = {}                  # id -> the node as last seen, in order of adding
                async for event in search:
                    for node in _nodes_of(event):
                        nodes[node.id] = node
                result = await search.result()
                return record_from_result(job, result.message, search.run_id, session,
                                          nodes.values())
    except ServiceUnavailable as exc:
        raise _Lost(exc, search.run_id if search else "") from exc
    except NotAPlanner as exc:
        raise PlannerUnreachable(f"the service at the planner address is not a planner: "
                                 f"{exc}") from exc
    except LatsError as exc:
        return error_record(job, f"{exc.code}: {exc.details}", session,
                            search.run_id if search else "")


async def solve_job(planner: AsyncPlanner, job: Job, env_address: str, session: int,
                    timeout: float, busy_wait: float = 600.0,
                    unreachable_after: float = UNREACHABLE_AFTER_SECONDS) -> dict:
    """Runs one job to its record, again on another planner whenever one is lost."""
    lost_since: float | None = None
    restarts = 0
    while True:
        try:
            record = await _solve_once(planner, env_address, job, session, timeout, busy_wait)
            record["restarts"] = restarts
            return record
        except _Lost as lost:
            now = time.monotonic()
            if lost.run_id or lost_since is None:
                lost_since = now      # a planner answered, or the first loss: the clock starts
            if now - lost_since > unreachable_after:
                raise PlannerUnreachable(f"no planner answered for {unreachable_after:.0f}s "
                                         f"({lost})") from None
            if lost.run_id:
                restarts += 1
                log.warning("job %s lost its planner mid-search (run %s, %s); running it "
                            "again", job.key, lost.run_id, lost)
            await asyncio.sleep(min(2.0, 0.1 * 2 ** min(restarts, 5)))


async def run_jobs(jobs: Sequence[Job], planner_address: str, env_address: str, session: int,
                   on_record: Callable[[dict], None], concurrency: int = 2,
                   timeout: float = 3600.0,
                   unreachable_after: float = UNREACHABLE_AFTER_SECONDS) -> None:
    """Runs `jobs` with at most `concurrency` in flight; on_record(record) as each ends."""
    slots = asyncio.Semaphore(max(1, concurrency))
    async with AsyncPlanner(planner_address) as planner:

        async def one(job: Job) -> None:
            async with slots:
                on_record(await solve_job(planner, job, env_address, session, timeout,
                                          unreachable_after=unreachable_after))

        async with asyncio.TaskGroup() as group:
            for job in jobs:
                group.create_task(one(job))
