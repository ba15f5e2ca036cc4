"""Run statuses: the wire enum (lats planner RunStatus) and the short names people read.

`RunStatus` is a `StrEnum` whose values are the short names ("running",
"solved", "failed", "error", "interrupted", "cancelled"), so stored records, printed lines
and JSON keep the same strings; the planner's search outcomes, the run views,
the bench records and the client library all use it. The planner's messages
carry the protocol enum; `to_wire` and `from_wire` are the one place the two
meet.
"""

from __future__ import annotations

import enum

from lats_pb import planner_pb2

_PREFIX = "RUN_STATUS_"


class RunStatus(enum.StrEnum):
    """Where a run stands; the values mirror planner.proto's RunStatus."""

    UNSPECIFIED = "unspecified"   # the wire's zero (a message that names no status)
    RUNNING = "running"
    SOLVED = "solved"             # a terminal state reached the success threshold
    FAILED = "failed"             # budget or tree exhausted without success
    ERROR = "error"               # an environment or gateway failure
    INTERRUPTED = "interrupted"   # its planner died or shut down before it ended
    CANCELLED = "cancelled"       # its client cancelled the search before it ended

    @property
    def ended(self) -> bool:
        """The run has its final record (every status but RUNNING and UNSPECIFIED)."""
        return self not in (RunStatus.RUNNING, RunStatus.UNSPECIFIED)


# Every status a query may name (the wire's zero names none).
NAMED: tuple[RunStatus, ...] = tuple(s for s in RunStatus if s is not RunStatus.UNSPECIFIED)


def to_wire(status: RunStatus) -> int:
    """The protocol's RunStatus value of `status`."""
    return planner_pb2.RunStatus.Value(_PREFIX + RunStatus(status).name)


def from_wire(value: int) -> RunStatus:
    """The status of a protocol RunStatus value; UNSPECIFIED for 0 or a value this build
    does not know."""
    try:
        return RunStatus[planner_pb2.RunStatus.Name(int(value)).removeprefix(_PREFIX)]
    except (ValueError, KeyError):
        return RunStatus.UNSPECIFIED


def parse(name: str) -> RunStatus:
    """The status a short name names ("solved"); ValueError lists the names."""
    try:
        status = RunStatus(name)
    except ValueError:
        status = RunStatus.UNSPECIFIED
    if status is RunStatus.UNSPECIFIED:
        raise ValueError(f"unknown run status {name!r}; use one of "
                         f"{', '.join(sorted(NAMED))}")
    return status
