"""The planner client, blocking: `Planner(address)`.

    with Planner("127.0.0.1:50053") as planner:
        search = planner.solve("127.0.0.1:50051", "game24/900", n=5, k=10)
        for event in search:             # typed events as the search grows
            ...
        result = search.result()         # the final Result
        run = planner.run(search.run_id) # the stored run with its tree

`address` names one planner, several replicas (host:port,host:port) or
dns:///name:port; calls are balanced over them. Every failed call raises a
`LatsError` naming the planner and its address (lats_client.errors). The
asyncio twin is `lats_client.aio.AsyncPlanner`, with the same methods.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import grpc

from lats_pb import planner_pb2 as pb
from lats_pb import planner_pb2_grpc as pb_grpc
from lats_runtime.channels import open_blocking_channel

from lats_client.errors import SOLVE_ERRORS, LatsError, service_error
from lats_client.events import Event, Finished, event_from_message, update_from_message
from lats_client.requests import list_request, search_config, solve_request
from lats_client.types import Facets, Result, Run, RunPage

SERVICE = "planner"
DEFAULT_TIMEOUT = 60.0            # seconds per unary call
DEFAULT_SEARCH_TIMEOUT = 3600.0   # seconds for a whole search
MAX_PAGE = 1000


class SearchStreamError(LatsError):
    """The planner ended a Solve stream without its `finished` event."""


class Search:
    """One search, streamed as it grows. Iterate for its events (the last is
    Finished); `result()` reads the rest and returns the Result. `run_id` is
    known from the first event on."""

    def __init__(self, call, address: str):
        self._call = call
        self._address = address
        self._events = self._read()
        self.run_id = ""
        self.final: Result | None = None

    def _read(self) -> Iterator[Event]:
        try:
            for message in self._call:
                event = event_from_message(message)
                self.run_id = event.run_id or self.run_id
                if isinstance(event, Finished):
                    self.final = event.result
                yield event
        except grpc.RpcError as error:
            raise service_error(SERVICE, self._address, error, SOLVE_ERRORS) from None
        if self.final is None:
            raise SearchStreamError(SERVICE, self._address, "UNKNOWN",
                                    "the Solve stream ended without a finished event")

    def __iter__(self) -> Iterator[Event]:
        return self._events

    def result(self) -> Result:
        """The search's Result, once it has finished (reading any events left)."""
        for _ in self._events:
            pass
        return self.final

    def cancel(self) -> None:
        """Stops the search (the planner stores it as cancelled by the client)."""
        self._call.cancel()


class Planner:
    """A blocking client of the planner at `address` (see the module docstring)."""

    def __init__(self, address: str, *, timeout: float = DEFAULT_TIMEOUT):
        self.address = address
        self.timeout = timeout
        self._channel = open_blocking_channel(address)
        self._stub = pb_grpc.PlannerStub(self._channel)

    # --------------------------------------------------------------- searches
    def solve(self, env: str, task: str | None = None, *,
              inline_task: Mapping[str, Any] | None = None, run_id: str | None = None,
              timeout: float = DEFAULT_SEARCH_TIMEOUT,
              config: pb.SearchConfig | Mapping[str, Any] | None = None,
              **settings: Any) -> Search:
        """Starts a search of `task` (or `inline_task`) in the environment at `env`.

        Settings are SearchConfig's fields (lats_client.requests): method, n, k,
        depth, max_calls, max_tokens, temperature, seed, model, ... The search
        runs while its events are read; `timeout` bounds it as a whole.
        """
        request = solve_request(env, task, inline_task, search_config(config, **settings),
                                run_id)
        return Search(self._stub.Solve(request, timeout=timeout), self.address)

    def watch(self, run_id: str, *, timeout: float | None = None) -> Iterator[Event]:
        """A run as it grows: a Snapshot, then (while it runs, on the planner
        executing it) every event its search emits, until it ends."""
        try:
            for update in self._stub.WatchRun(pb.WatchRunRequest(run_id=run_id),
                                              timeout=timeout):
                yield update_from_message(update)
        except grpc.RpcError as error:
            raise service_error(SERVICE, self.address, error) from None

    # ------------------------------------------------------------------ runs
    def run(self, run_id: str) -> Run:
        """The stored run, with its tree (live while it runs)."""
        return Run.from_message(self._call("GetRun", pb.GetRunRequest(run_id=run_id)))

    def runs_page(self, *, page_size: int = 50, offset: int = 0, facets: bool = False,
                  **filters: Any) -> RunPage:
        """One page of stored runs, newest first, without their trees. Filters:
        environment, method, status (a name or several), model, task, run_id_prefix."""
        request = list_request(page_size=page_size, offset=offset, facets=facets, **filters)
        return RunPage.from_message(self._call("ListRuns", request), facets)

    def runs(self, *, limit: int | None = 50, offset: int = 0, **filters: Any) -> list[Run]:
        """Up to `limit` stored runs (None: all), newest first, without their trees,
        reading as many pages as that takes (filters as for runs_page)."""
        found: list[Run] = []
        next_offset: int | None = offset
        while next_offset is not None and (limit is None or len(found) < limit):
            size = MAX_PAGE if limit is None else min(MAX_PAGE, limit - len(found))
            page = self.runs_page(page_size=size, offset=next_offset, **filters)
            found += page.runs
            next_offset = page.next_offset
        return found

    def facets(self) -> Facets:
        """The environments, methods and models of the stored runs."""
        return self.runs_page(page_size=1, facets=True).facets

    # ------------------------------------------------------------- plumbing
    def _call(self, name: str, request):
        try:
            return getattr(self._stub, name)(request, timeout=self.timeout)
        except grpc.RpcError as error:
            raise service_error(SERVICE, self.address, error) from None

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> Planner:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

