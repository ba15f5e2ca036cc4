"""The run a piece of work belongs to, carried across services in gRPC metadata.

A planner enters `run_scope(run_id)` for each search; every call it makes
through `lats_runtime.calls.ServiceClient` then carries the id as the
`lats-run-id` metadata header (`with_run_id`), and every server built by
`lats_runtime.serving` enters the scope of the id it receives for the
duration of the call. Log records (`lats_runtime.logs`) name the current run,
so one run's lines can be found in every service's log.

The header comes from clients and is untrusted: an id that is not 1-128
characters of letters, digits and `._:-` is ignored.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
from collections.abc import Iterator, Sequence

RUN_ID_METADATA_KEY = "lats-run-id"
_VALID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
_current: contextvars.ContextVar[str] = contextvars.ContextVar("lats_run_id", default="")


def current_run_id() -> str:
    """The run id of the work in progress ("" outside any run)."""
    return _current.get()


def valid_run_id(run_id: str) -> bool:
    return bool(_VALID.fullmatch(run_id))


def run_id_problem(run_id: str) -> str | None:
    """What is wrong with a client's run id (None if it is valid), for an error message."""
    if valid_run_id(run_id):
        return None
    shown = repr(run_id) if len(run_id) <= 40 else f"{run_id[:40]!r}... ({len(run_id)} characters)"
    return f"run_id must be 1-128 characters of letters, digits and ._:- (got {shown})"


@contextlib.contextmanager
def run_scope(run_id: str) -> Iterator[None]:
    """Within this block (and tasks started in it) the current run is `run_id`."""
    token = _current.set(run_id if valid_run_id(run_id) else "")
    try:
        yield
    finally:
        try:
            _current.reset(token)
        except ValueError:     # left in another context (e.g. a generator resumed elsewhere)
            _current.set("")


def enter_run(run_id: str) -> None:
    """Makes `run_id` current for the rest of this task (tasks it starts inherit it)."""
    _current.set(run_id if valid_run_id(run_id) else "")


def with_run_id(metadata: Sequence[tuple[str, str]] | None) -> tuple[tuple[str, str], ...] | None:
    """`metadata` plus the current run id header, unless absent or already given."""
    run_id = current_run_id()
    items = tuple(metadata or ())
    if not run_id or any(key == RUN_ID_METADATA_KEY for key, _ in items):
        return items or None
    return (*items, (RUN_ID_METADATA_KEY, run_id))


def run_id_from(metadata) -> str:
    """The valid run id in incoming metadata, else ""."""
    for item in metadata or ():
        key, value = item[0], item[1]
        if key == RUN_ID_METADATA_KEY and isinstance(value, str) and valid_run_id(value):
            return value
    return ""
