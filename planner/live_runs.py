"""The runs this planner replica is executing, and their records in the shared store.

A `LiveRun` is one run in flight: its record, its search, the model calls kept
for training data, its watchers' feed, and a lock held while it is written.
`LiveRuns` holds this replica's: a lease keeper renews their heartbeat and
stores their growing tree (and the calls made since) every
`heartbeat_seconds`, and marks INTERRUPTED any run whose planner stopped
renewing; a run that ends leaves with its final record stored; on shutdown the
runs still going are stored INTERRUPTED.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field

from lats_pb import planner_pb2 as pb

from planner.convert import node_message
from planner.feed import RunFeed
from planner.runs import LeaseSettings, RunStore
from planner.runs.store import interrupted
from planner.search import Search
from planner.call_log import CallLog

log = logging.getLogger(__name__)


@dataclass
class LiveRun:
    run: pb.Run
    search: Search | None = None
    calls: CallLog = field(default_factory=CallLog)   # model calls kept for training data
    # Held while the run is written, so a heartbeat never overwrites the final record.
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    feed: RunFeed = field(default_factory=RunFeed)


def run_snapshot(live: LiveRun) -> pb.Run:
    """The run with its current tree and reflections."""
    run = pb.Run()
    run.CopyFrom(live.run)
    search = live.search
    if search is not None and search.root is not None:
        del run.nodes[:]
        run.nodes.extend(node_message(n) for n in search.root.walk())
        del run.reflections[:]
        run.reflections.extend(search.reflections)
    return run


class LiveRuns:
    """This replica's runs in flight, by run id, and the store they are written to.

    `closing` is set once the planner begins to shut down: from then on a search
    cut short is INTERRUPTED, not an error.
    """

    def __init__(self, store: RunStore, owner: str, lease: LeaseSettings):
        self.store = store
        self.owner = owner
        self.closing = False
        self._lease = lease
        self._runs: dict[str, LiveRun] = {}
        self._keeper: asyncio.Task | None = None
        self._final_writes: set[asyncio.Future] = set()

    def get(self, run_id: str) -> LiveRun | None:
        return self._runs.get(run_id)

    async def taken(self, run_id: str) -> bool:
        """A run with this id is going here or stored by any replica."""
        return run_id in self._runs or await self.store.get(run_id) is not None

    async def add(self, live: LiveRun) -> None:
        """Keeps the run here and stores its first record."""
        self._runs[live.run.run_id] = live
        await self.store.put(live.run)

    def store_final(self, live: LiveRun) -> asyncio.Future:
        """Starts storing the run's last record (the run leaves as it is written);
        `stop` waits for every such write."""
        write = asyncio.ensure_future(self._store_final(live))
        self._final_writes.add(write)
        write.add_done_callback(self._final_writes.discard)
        return write

    async def start(self) -> None:
        """Sweeps lapsed runs once, then keeps leases in the background."""
        await self._sweep()
        self._keeper = asyncio.create_task(self._keep_leases())

    async def stop(self) -> None:
        """Stops the lease keeper and stores every run still going as INTERRUPTED."""
        self.closing = True
        if self._keeper is not None:
            self._keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._keeper
        for run_id, live in list(self._runs.items()):
            async with live.lock:
                if self._runs.pop(run_id, None) is live:
                    stored = interrupted(run_snapshot(live),
                                         f"planner {self.owner} shut down during the search")
                    await self.store.put(stored)
                    await self._store_calls(live)
            live.feed.close()
        # Searches cut short by the server's shutdown write their last record on
        # their own: let every such write land before the store closes.
        if self._final_writes:
            await asyncio.wait(set(self._final_writes), timeout=30)

    async def _store_final(self, live: LiveRun) -> pb.Run:
        async with live.lock:
            stored = run_snapshot(live)
            self._runs.pop(live.run.run_id, None)
            await self.store.put(stored)
            await self._store_calls(live)
        return stored

    async def _store_calls(self, live: LiveRun) -> None:
        """Stores the run's kept model calls made since the last time (under live.lock)."""
        pending = live.calls.pending()
        if pending:
            await self.store.add_calls(live.run.run_id, pending)
            live.calls.stored(len(pending))

    async def _keep_leases(self) -> None:
        while True:
            await asyncio.sleep(self._lease.heartbeat_seconds)
            try:
                for run_id, live in list(self._runs.items()):
                    async with live.lock:
                        if self._runs.get(run_id) is live:
                            await self.store.put(run_snapshot(live))   # renews, with the tree
                            await self._store_calls(live)
                await self._sweep()
            except Exception:  # a store hiccup must not end the keeper
                log.exception("renewing leases failed; retrying in %.1fs",
                              self._lease.heartbeat_seconds)

    async def _sweep(self) -> None:
        lapsed = await self.store.interrupt_lapsed(self._lease.lease_seconds)
        if lapsed:
            log.warning("marked %d run(s) interrupted whose planner stopped renewing: %s",
                        len(lapsed), ", ".join(lapsed))
