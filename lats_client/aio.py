"""The planner client for asyncio: `AsyncPlanner(address)`, the twin of
`lats_client.Planner` with the same methods, awaited.

    async with AsyncPlanner("127.0.0.1:50053") as planner:
        search = planner.solve("127.0.0.1:50051", "game24/900", n=5, k=10)
        async for event in search:
            ...
        result = await search.result()
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

import grpc

from lats_pb import planner_pb2 as pb
from lats_pb import planner_pb2_grpc as pb_grpc
from lats_runtime.channels import open_channel

from lats_client.errors import SOLVE_ERRORS, service_error
from lats_client.events import Event, Finished, event_from_message, update_from_message
from lats_client.planner import (DEFAULT_SEARCH_TIMEOUT, DEFAULT_TIMEOUT, MAX_PAGE, SERVICE,
                                 SearchStreamError)
from lats_client.requests import list_request, search_config, solve_request
from lats_client.types import Facets, Result, Run, RunPage


class AsyncSearch:
    """One search, streamed as it grows (`async for`); `await result()` reads the
    rest and returns the Result. `run_id` is known from the first event on."""

    def __init__(self, call, address: str):
        self._call = call
        self._address = address
        self._events = self._read()
        self.run_id = ""
        self.final: Result | None = None

    async def _read(self) -> AsyncIterator[Event]:
        try:
            async for message in self._call:
                event = event_from_message(message)
                self.run_id = event.run_id or self.run_id
                if isinstance(event, Finished):
                    self.final = event.result
                yield event
        except grpc.aio.AioRpcError as error:
            raise service_error(SERVICE, self._address, error, SOLVE_ERRORS) from None
        if self.final is None:
            raise SearchStreamError(SERVICE, self._address, "UNKNOWN",
                                    "the Solve stream ended without a finished event")

    def __aiter__(self) -> AsyncIterator[Event]:
        return self._events

    async def result(self) -> Result:
        """The search's Result, once it has finished (reading any events left)."""
        async for _ in self._events:
            pass
        return self.final

    def cancel(self) -> None:
        """Stops the search (the planner stores it as cancelled by the client)."""
        self._call.cancel()


class AsyncPlanner:
    """An asyncio client of the planner at `address` (host:port, a list of
    replicas, or dns:///name:port). Open it inside a running event loop."""

    def __init__(self, address: str, *, timeout: float = DEFAULT_TIMEOUT):
        self.address = address
        self.timeout = timeout
        self._channel = open_channel(address)
        self._stub = pb_grpc.PlannerStub(self._channel)

    def solve(self, env: str, task: str | None = None, *,
              inline_task: Mapping[str, Any] | None = None, run_id: str | None = None,
              timeout: float = DEFAULT_SEARCH_TIMEOUT,
              config: pb.SearchConfig | Mapping[str, Any] | None = None,
              **settings: Any) -> AsyncSearch:
        """Starts a search (as lats_client.Planner.solve); read it with `async for`."""
        request = solve_request(env, task, inline_task, search_config(config, **settings),
                                run_id)
        return AsyncSearch(self._stub.Solve(request, timeout=timeout), self.address)

    async def watch(self, run_id: str, *, timeout: float | None = None
                    ) -> AsyncIterator[Event]:
        """A Snapshot of the run, then every event of its search until it ends."""
        try:
            async for update in self._stub.WatchRun(pb.WatchRunRequest(run_id=run_id),
                                                    timeout=timeout):
                yield update_from_message(update)
        except grpc.aio.AioRpcError as error:
            raise service_error(SERVICE, self.address, error) from None

    async def run(self, run_id: str) -> Run:
        """The stored run, with its tree (live while it runs)."""
        return Run.from_message(await self._call("GetRun", pb.GetRunRequest(run_id=run_id)))

    async def runs_page(self, *, page_size: int = 50, offset: int = 0, facets: bool = False,
                        **filters: Any) -> RunPage:
        """One page of stored runs, newest first, without their trees."""
        request = list_request(page_size=page_size, offset=offset, facets=facets, **filters)
        return RunPage.from_message(await self._call("ListRuns", request), facets)

    async def runs(self, *, limit: int | None = 50, offset: int = 0,
                   **filters: Any) -> list[Run]:
        """Up to `limit` stored runs (None: all), newest first, reading pages as needed."""
        found: list[Run] = []
        next_offset: int | None = offset
        while next_offset is not None and (limit is None or len(found) < limit):
            size = MAX_PAGE if limit is None else min(MAX_PAGE, limit - len(found))
            page = await self.runs_page(page_size=size, offset=next_offset, **filters)
            found += page.runs
            next_offset = page.next_offset
        return found

    async def facets(self) -> Facets:
        """The environments, methods and models of the stored runs."""
        return (await self.runs_page(page_size=1, facets=True)).facets

    async def _call(self, name: str, request):
        try:
            return await getattr(self._stub, name)(request, timeout=self.timeout)
        except grpc.aio.AioRpcError as error:
            raise service_error(SERVICE, self.address, error) from None

    async def close(self) -> None:
        await self._channel.close()

    async def __aenter__(self) -> AsyncPlanner:
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.close()
