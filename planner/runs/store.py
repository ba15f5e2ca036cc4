"""The run store interface and the helpers its backends share."""

from __future__ import annotations

import abc
from dataclasses import dataclass

from lats_pb import planner_pb2 as pb

# Columns every backend keeps beside the Run message, for lookups and filters.
SUMMARY_COLUMNS = ("status", "task_id", "created_at", "owner", "environment", "method", "model")


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
        "model": run.result.model,
    }


def interrupted(run: pb.Run, why: str) -> pb.Run:
    """`run` marked INTERRUPTED, saying why (kept: its tree and what it used)."""
    run.status = pb.RUN_STATUS_INTERRUPTED
    run.result.status = pb.RUN_STATUS_INTERRUPTED
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
    async def renew(self, owner: str, run_ids: list[str]) -> None:
        """Renews the heartbeat of `owner`'s RUNNING runs among `run_ids`."""

    @abc.abstractmethod
    async def interrupt_lapsed(self, lease_seconds: float) -> list[str]:
        """Marks INTERRUPTED every RUNNING run whose heartbeat is older than the
        lease; returns their ids. Safe to call from many planners at once."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Releases connections."""
