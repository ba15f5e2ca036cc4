"""The run store interface and the helpers its backends share."""

from __future__ import annotations

import abc
import dataclasses
from dataclasses import dataclass

from lats_pb import planner_pb2 as pb
from lats_runtime.run_status import RunStatus, to_wire

# Columns every backend keeps beside the Run message, for lookups and filters;
# `result` is the serialized RunResult, so listing never decodes a whole tree.
SUMMARY_COLUMNS = ("status", "task_id", "created_at", "owner", "environment", "method", "model",
                   "result")
MAX_LIST_LIMIT = 1000


@dataclass(frozen=True)
class LeaseSettings:
    """How often a planner renews its runs, and how long a lapse may last."""

    heartbeat_seconds: float = 5.0
    lease_seconds: float = 30.0

    def __post_init__(self) -> None:
        if not 0 < self.heartbeat_seconds < self.lease_seconds:
            raise ValueError("the heartbeat must be positive and shorter than the lease "
                             f"(got {self.heartbeat_seconds}s and {self.lease_seconds}s)")


def summary(run: pb.Run) -> dict:
    """The indexed columns of a run."""
    return {
        "status": int(run.status), "task_id": run.task_id, "created_at": run.created_at,
        "owner": run.owner, "environment": run.result.environment,
        "method": run.result.method or run.result.config.method,
        "model": run.result.model, "result": run.result.SerializeToString(),
    }


@dataclass(frozen=True)
class RunQuery:
    """Which runs to list, newest first; an empty filter matches every run.

    `environment` is a name or name@version (as Describe reports them);
    `model`, `task` and `run_id_prefix` match parts of the model, the task id
    and the run id; `statuses` are RunStatus values.
    """

    environment: str = ""
    method: str = ""
    statuses: tuple[int, ...] = ()
    model: str = ""
    task: str = ""
    run_id_prefix: str = ""
    limit: int = 50
    offset: int = 0

    def __post_init__(self) -> None:
        if not 1 <= self.limit <= MAX_LIST_LIMIT:
            raise ValueError(f"limit must be 1..{MAX_LIST_LIMIT}, got {self.limit}")
        if self.offset < 0:
            raise ValueError(f"offset must be >= 0, got {self.offset}")


def _like(text: str) -> str:
    """`text` with LIKE's wildcards escaped (the escape character is a backslash)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def query_filters(query: RunQuery, mark: str) -> tuple[str, list]:
    """The WHERE clause (or "") and its parameters, with `mark` as the placeholder."""
    clauses: list[str] = []
    params: list = []
    if query.environment:  # a name, name@version, or a family: textarena finds textarena-Game-v0@...
        clauses.append(f"(environment = {mark} OR environment LIKE {mark} ESCAPE '\\' "
                       f"OR environment LIKE {mark} ESCAPE '\\')")
        params += [query.environment, _like(query.environment) + "@%",
                   _like(query.environment) + "-%"]
    if query.method:
        clauses.append(f"method = {mark}")
        params.append(query.method)
    if query.statuses:
        clauses.append(f"status IN ({', '.join([mark] * len(query.statuses))})")
        params += [int(status) for status in query.statuses]
    for column, text, pattern in (("model", query.model, "%{}%"),
                                  ("task_id", query.task, "%{}%"),
                                  ("run_id", query.run_id_prefix, "{}%")):
        if text:
            clauses.append(f"{column} LIKE {mark} ESCAPE '\\'")
            params.append(pattern.format(_like(text)))
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


LIST_COLUMNS = ("run_id, status, task_id, created_at, owner, heartbeat_at, result, "
                "CASE WHEN result IS NULL THEN run END")


def listed_run(run_id, status, task_id, created_at, owner, heartbeat_at: str, result,
               old_blob) -> pb.Run:
    """A listed row as a Run without its tree (older rows keep no result column)."""
    run = pb.Run(run_id=run_id, status=status, task_id=task_id, created_at=created_at,
                 owner=owner, heartbeat_at=heartbeat_at)
    if result is not None:
        run.result.ParseFromString(bytes(result))
    elif old_blob is not None:
        run.result.CopyFrom(pb.Run.FromString(bytes(old_blob)).result)
    return run


def interrupted(run: pb.Run, why: str) -> pb.Run:
    """`run` marked INTERRUPTED, saying why (kept: its tree and what it used)."""
    run.status = run.result.status = to_wire(RunStatus.INTERRUPTED)
    run.result.error = why
    return run


class RunStore(abc.ABC):
    """Durable runs, shared by every planner replica that opens the same location."""

    location: str

    @abc.abstractmethod
    async def open(self) -> None:
        """Connects and creates (or migrates) the schema."""

    @abc.abstractmethod
    async def put(self, run: pb.Run) -> None:
        """Inserts or replaces a run; a RUNNING run's heartbeat is renewed with it."""

    @abc.abstractmethod
    async def get(self, run_id: str) -> pb.Run | None:
        """The stored run, with `heartbeat_at` filled in; None if unknown."""

    @abc.abstractmethod
    async def list_runs(self, query: RunQuery) -> list[pb.Run]:
        """The runs `query` matches, newest first, without their trees (no nodes,
        reflections or setup): status, task, owner, heartbeat and result."""

    async def every_run(self, query: RunQuery) -> list[pb.Run]:
        """Every run `query` matches (its limit is the page size; offset the start)."""
        runs: list[pb.Run] = []
        while True:
            page = await self.list_runs(dataclasses.replace(query, offset=query.offset + len(runs)))
            runs += page
            if len(page) < query.limit:
                return runs

    @abc.abstractmethod
    async def facets(self) -> dict[str, list[str]]:
        """The distinct environments, methods and models of the stored runs
        (keys "environment", "method", "model"; sorted; no empty values)."""

    @abc.abstractmethod
    async def renew(self, owner: str, run_ids: list[str]) -> None:
        """Renews the heartbeat of `owner`'s RUNNING runs among `run_ids`."""

    @abc.abstractmethod
    async def interrupt_lapsed(self, lease_seconds: float) -> list[str]:
        """Marks INTERRUPTED every RUNNING run whose heartbeat is older than the
        lease; returns their ids. Safe to call from many planners at once."""

    @abc.abstractmethod
    async def add_calls(self, run_id: str, calls: list[pb.ModelCall]) -> None:
        """Keeps model calls of a run beside it (planner.call_log), by run and call
        index; a call stored again is ignored."""

    @abc.abstractmethod
    async def calls(self, run_id: str) -> list[pb.ModelCall]:
        """The stored model calls of a run, in index order (none for an unknown run)."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Releases connections."""
