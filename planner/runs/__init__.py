"""The record of runs that every planner replica shares.

`RunStore` is the interface; `open_run_store(location)` picks the backend:
a `postgresql://` URL gives PostgreSQL (shared by any number of planners on
any machines), anything else is a SQLite file (the embedded default; planner
processes on one machine may share it).

Leases: a planner owns the runs it executes and renews a heartbeat on them
(`renew`). A RUNNING run whose heartbeat is older than the lease belongs to a
planner that died; any live planner marks it INTERRUPTED (`interrupt_lapsed`),
so no run is left RUNNING forever. Times are the database's own clock, so
planners on machines with skewed clocks agree.
"""

from planner.runs.store import LeaseSettings, RunQuery, RunStore

__all__ = ["LeaseSettings", "RunQuery", "RunStore", "open_run_store"]


def open_run_store(location: str) -> RunStore:
    """A store for `location`: a postgresql:// URL, else a SQLite file path."""
    if location.startswith(("postgresql://", "postgres://")):
        from planner.runs.postgres import PostgresRunStore

        return PostgresRunStore(location)
    from planner.runs.sqlite import SqliteRunStore

    return SqliteRunStore(location)
