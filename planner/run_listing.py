"""ListRuns: a ListRunsRequest as a run-store query, and pages of the answer.

A page token is the offset of the page's first run as decimal text (the
proto says so, so a client may start anywhere); the next page's token is
given only when another run follows. Every problem with a request is a
`ListRunsProblem` whose message says what to fix (the servicer answers it
as INVALID_ARGUMENT).
"""

from __future__ import annotations

import dataclasses

from lats_pb import planner_pb2 as pb
from lats_runtime.quoting import quoted

from planner.runs import RunQuery, RunStore
from planner.runs.store import MAX_LIST_LIMIT

DEFAULT_PAGE_SIZE = 50
MAX_FILTER_CHARS = 200
MAX_OFFSET = 10**9
_STATUSES = frozenset(value for value in pb.RunStatus.values() if value)


class ListRunsProblem(ValueError):
    """A ListRunsRequest that cannot be answered; the message says what to fix."""


def _offset(token: str) -> int:
    if not token:
        return 0
    if len(token) > 10 or not token.isascii() or not token.isdigit() or int(token) > MAX_OFFSET:
        raise ListRunsProblem(f"page_token {quoted(token)} is not one ListRuns gave "
                              "(a token is the offset of the page's first run, 0..1000000000)")
    return int(token)


def list_query(request: pb.ListRunsRequest) -> RunQuery:
    """The store query `request` asks for (ListRunsProblem when it cannot be one)."""
    for name in ("environment", "method", "model", "task", "run_id_prefix"):
        value = getattr(request, name)
        if len(value) > MAX_FILTER_CHARS:
            raise ListRunsProblem(f"{name} is longer than {MAX_FILTER_CHARS} characters")
    unknown = [status for status in request.statuses if status not in _STATUSES]
    if unknown:
        known = ", ".join(name for name in pb.RunStatus.keys() if pb.RunStatus.Value(name))
        raise ListRunsProblem(f"statuses holds {unknown[0]}, which is no run status; use "
                              f"{known}")
    size = request.page_size or DEFAULT_PAGE_SIZE
    if size > MAX_LIST_LIMIT:
        raise ListRunsProblem(f"page_size must be 1..{MAX_LIST_LIMIT}, got {size}")
    return RunQuery(environment=request.environment, method=request.method,
                    statuses=tuple(dict.fromkeys(int(s) for s in request.statuses)),
                    model=request.model, task=request.task,
                    run_id_prefix=request.run_id_prefix, limit=size,
                    offset=_offset(request.page_token))


async def list_page(store: RunStore, request: pb.ListRunsRequest) -> pb.ListRunsResponse:
    """One page of the runs `request` asks for, read from `store`."""
    query = list_query(request)
    if query.limit < MAX_LIST_LIMIT:   # one run more than asked tells whether a page follows
        found = await store.list_runs(dataclasses.replace(query, limit=query.limit + 1))
        more = len(found) > query.limit
    else:
        found = await store.list_runs(query)
        more = bool(await store.list_runs(dataclasses.replace(
            query, limit=1, offset=query.offset + query.limit)))
    response = pb.ListRunsResponse(runs=found[:query.limit])
    if more:
        response.next_page_token = str(query.offset + query.limit)
    if request.include_facets:
        facets = await store.facets()
        response.facets.environments.extend(facets.get("environment", ()))
        response.facets.methods.extend(facets.get("method", ()))
        response.facets.models.extend(facets.get("model", ()))
    return response
