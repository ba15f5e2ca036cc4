"""Following one run as it grows: its record, then its live events.

`follow_run` yields ("snapshot", Run) and ("event", SearchEvent) pairs and
returns when the run has ended:
  * a run that has ended: its stored record, once;
  * a running run: WatchRun on the planner executing it (the record's
    `owner_address`): a snapshot, then every event Solve streams. While events
    are quiet the store is checked every `check_seconds`, so a planner that
    vanished without closing the stream (its run marked INTERRUPTED by
    another planner) does not hold the follower forever;
  * when the planner cannot be reached, or the stream ends or breaks: the
    stored record, re-read every `poll_seconds` (the planner stores it every
    heartbeat) until the run has ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from lats_pb import planner_pb2 as pb
from lats_client import AsyncPlanner, LatsError, Snapshot
from lats_runtime.channels import AddressError
from lats_runtime.run_status import RunStatus, from_wire
from planner.runs import RunStore

log = logging.getLogger(__name__)

Update = tuple[str, object]


class RunNotFound(LookupError):
    """No run with that id in the store."""


async def _watch(store: RunStore, run: pb.Run, check_seconds: float) -> AsyncIterator[Update]:
    """The owner's WatchRun updates (through the Python client); returns early if the
    store says the run ended."""
    async with AsyncPlanner(run.owner_address) as planner:
        updates = planner.watch(run.run_id)
        read = asyncio.ensure_future(anext(updates, None))
        try:
            while True:
                done, _ = await asyncio.wait({read}, timeout=check_seconds)
                if not done:
                    stored = await store.get(run.run_id)
                    if stored is None or from_wire(stored.status) is not RunStatus.RUNNING:
                        return
                    continue
                update = read.result()
                if update is None:
                    return
                if isinstance(update, Snapshot):
                    yield "snapshot", update.run.message
                else:
                    yield "event", update.message
                read = asyncio.ensure_future(anext(updates, None))
        finally:
            read.cancel()
            with contextlib.suppress(BaseException):
                await read
            await updates.aclose()


async def follow_run(store: RunStore, run_id: str, *, poll_seconds: float = 2.0,
                     check_seconds: float = 30.0) -> AsyncIterator[Update]:
    """The run's updates until it has ended (see the module docstring)."""
    run = await store.get(run_id)
    if run is None:
        raise RunNotFound(run_id)
    if from_wire(run.status) is not RunStatus.RUNNING:
        yield "snapshot", run
        return
    if run.owner_address:
        try:
            async for update in _watch(store, run, check_seconds):
                yield update
        except (LatsError, AddressError) as error:
            log.info("watching run %s at %s stopped (%s); following the stored record",
                     run_id, run.owner_address, error)
    last = None
    while True:
        run = await store.get(run_id)
        if run is None:
            return
        seen = (run.status, run.last_seq, run.heartbeat_at, len(run.nodes))
        if seen != last:
            last = seen
            yield "snapshot", run
        if from_wire(run.status) is not RunStatus.RUNNING:
            return
        await asyncio.sleep(poll_seconds)
