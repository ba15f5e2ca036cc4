"""Runs bench jobs against a planner, a bounded number at a time.

Each job is one Solve call; its `finished` event becomes a record, stored the
moment it arrives (`on_record`). A job the planner refuses (a bad config, an
unknown task) becomes an error record. When the planner is busy
(RESOURCE_EXHAUSTED) the job waits and retries. When the planner cannot be
reached the bench stops (PlannerUnreachable) instead of filling the store
with errors; the jobs that finished are kept, and --resume continues.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

import grpc
from tenacity import AsyncRetrying, retry_if_exception, stop_after_delay, wait_exponential

from lats_pb import planner_pb2 as pb
from lats_pb import planner_pb2_grpc as pb_grpc

from lats.bench.records import error_record, record_from_result
from lats.bench.variants import Job

FATAL = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNIMPLEMENTED}


class PlannerUnreachable(RuntimeError):
    """The planner stopped answering; the bench cannot go on."""


def _busy(exc: BaseException) -> bool:
    return (isinstance(exc, grpc.aio.AioRpcError)
            and exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED)


async def solve_job(stub: pb_grpc.PlannerStub, job: Job, env_address: str, session: int,
                    timeout: float, busy_wait: float = 600.0) -> dict:
    """Runs one job to its record."""
    request = pb.SolveRequest(env_address=env_address, task_id=job.task_id,
                              config=job.search_config())
    run_id = ""
    try:
        async for attempt in AsyncRetrying(retry=retry_if_exception(_busy), reraise=True,
                                           wait=wait_exponential(multiplier=0.5, max=10),
                                           stop=stop_after_delay(busy_wait)):
            with attempt:
                async for event in stub.Solve(request, timeout=timeout):
                    run_id = event.run_id
                    if event.HasField("finished"):
                        return record_from_result(job, event.finished, run_id, session)
    except grpc.aio.AioRpcError as exc:
        if exc.code() in FATAL:
            raise PlannerUnreachable(f"{exc.code().name}: {exc.details()}") from exc
        return error_record(job, f"{exc.code().name}: {exc.details()}", session, run_id)
    return error_record(job, "the planner ended the stream without a finished event",
                        session, run_id)


async def run_jobs(jobs: Sequence[Job], planner_address: str, env_address: str, session: int,
                   on_record: Callable[[dict], None], concurrency: int = 2,
                   timeout: float = 3600.0) -> None:
    """Runs `jobs` with at most `concurrency` in flight; on_record(record) as each ends."""
    slots = asyncio.Semaphore(max(1, concurrency))
    async with grpc.aio.insecure_channel(planner_address) as channel:
        stub = pb_grpc.PlannerStub(channel)

        async def one(job: Job) -> None:
            async with slots:
                on_record(await solve_job(stub, job, env_address, session, timeout))

        async with asyncio.TaskGroup() as group:
            for job in jobs:
                group.create_task(one(job))
