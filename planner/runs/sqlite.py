"""Runs in a SQLite file: the embedded default.

Writes go through one connection guarded by a lock, in a worker thread, so
the event loop never blocks on disk. WAL mode lets planner processes on one
machine share the file. Heartbeats are Unix seconds from SQLite's clock.
"""

from __future__ import annotations

import asyncio
import datetime
import sqlite3
import threading
from pathlib import Path

from lats_pb import planner_pb2 as pb
from lats_runtime.run_status import RunStatus, to_wire

from planner.runs.store import (LIST_COLUMNS, SUMMARY_COLUMNS, RunQuery, RunStore, interrupted,
                                listed_run, query_filters, summary)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id       TEXT PRIMARY KEY,
    status       INTEGER NOT NULL,
    task_id      TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    run          BLOB NOT NULL
)
"""
# The model calls kept for training data (planner.call_log), beside the runs.
_CALLS_SCHEMA = """
CREATE TABLE IF NOT EXISTS run_calls (
    run_id  TEXT NOT NULL,
    idx     INTEGER NOT NULL,
    purpose TEXT NOT NULL,
    call    BLOB NOT NULL,
    PRIMARY KEY (run_id, idx)
)
"""
# Added after the first release: (name, declaration); older files are migrated.
_ADDED_COLUMNS = (
    ("owner", "TEXT NOT NULL DEFAULT ''"),
    ("heartbeat_at", "REAL"),
    ("environment", "TEXT NOT NULL DEFAULT ''"),
    ("method", "TEXT NOT NULL DEFAULT ''"),
    ("model", "TEXT NOT NULL DEFAULT ''"),
    ("result", "BLOB"),
)
_NOW = "((julianday('now') - 2440587.5) * 86400.0)"  # Unix seconds, fractional
_RUNNING = to_wire(RunStatus.RUNNING)   # the status column holds the wire value


def _rfc3339(seconds: float | None) -> str:
    if seconds is None:
        return ""
    moment = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)
    return moment.isoformat(timespec="milliseconds")


class SqliteRunStore(RunStore):
    def __init__(self, path: str | Path):
        self.location = str(path)
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    async def open(self) -> None:
        await asyncio.to_thread(self._open)

    def _open(self) -> None:
        if self.location != ":memory:":
            Path(self.location).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.location, check_same_thread=False, timeout=30,
                                   isolation_level=None)
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(_SCHEMA)
            present = {row[1] for row in self._db.execute("PRAGMA table_info(runs)")}
            for name, declaration in _ADDED_COLUMNS:
                if name not in present:
                    self._db.execute(f"ALTER TABLE runs ADD COLUMN {name} {declaration}")
            self._db.execute("CREATE INDEX IF NOT EXISTS runs_running "
                             "ON runs (status, heartbeat_at)")
            self._db.execute("CREATE INDEX IF NOT EXISTS runs_created ON runs (created_at)")
            self._db.execute(_CALLS_SCHEMA)

    def _put(self, run: pb.Run) -> None:
        columns = summary(run)
        names = ", ".join(("run_id", *SUMMARY_COLUMNS, "run", "heartbeat_at"))
        marks = ", ".join("?" * (len(SUMMARY_COLUMNS) + 2))
        values = (run.run_id, *(columns[c] for c in SUMMARY_COLUMNS), run.SerializeToString())
        with self._lock:
            self._db.execute(
                f"INSERT OR REPLACE INTO runs ({names}) VALUES ({marks}, "
                f"CASE WHEN ? = {_RUNNING} THEN {_NOW} ELSE "
                "(SELECT heartbeat_at FROM runs WHERE run_id = ?) END)",
                (*values, int(run.status), run.run_id))

    def _get(self, run_id: str) -> pb.Run | None:
        with self._lock:
            row = self._db.execute("SELECT run, heartbeat_at FROM runs WHERE run_id = ?",
                                   (run_id,)).fetchone()
        if row is None:
            return None
        run = pb.Run.FromString(row[0])
        run.heartbeat_at = _rfc3339(row[1])
        return run

    def _renew(self, owner: str, run_ids: list[str]) -> None:
        if not run_ids:
            return
        marks = ", ".join("?" * len(run_ids))
        with self._lock:
            self._db.execute(
                f"UPDATE runs SET heartbeat_at = {_NOW} WHERE owner = ? AND status = ? "
                f"AND run_id IN ({marks})", (owner, _RUNNING, *run_ids))

    def _interrupt_lapsed(self, lease_seconds: float) -> list[str]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                rows = self._db.execute(
                    f"SELECT run_id, run, owner FROM runs WHERE status = ? AND "
                    f"(heartbeat_at IS NULL OR heartbeat_at < {_NOW} - ?)",
                    (_RUNNING, lease_seconds)).fetchall()
                for run_id, blob, owner in rows:
                    run = interrupted(pb.Run.FromString(blob),
                                      f"planner {owner or '?'} stopped renewing its lease "
                                      f"(over {lease_seconds:g}s); it died or lost the store")
                    self._db.execute(
                        "UPDATE runs SET status = ?, run = ?, result = ? WHERE run_id = ?",
                        (int(run.status), run.SerializeToString(),
                         run.result.SerializeToString(), run_id))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return [row[0] for row in rows]

    def _list_runs(self, query: RunQuery) -> list[pb.Run]:
        where, params = query_filters(query, "?")
        with self._lock:
            rows = self._db.execute(
                f"SELECT {LIST_COLUMNS} FROM runs{where} ORDER BY created_at DESC, run_id DESC "
                "LIMIT ? OFFSET ?", (*params, query.limit, query.offset)).fetchall()
        return [listed_run(*row[:5], _rfc3339(row[5]), *row[6:]) for row in rows]

    def _facets(self) -> dict[str, list[str]]:
        facets = {}
        with self._lock:
            for column in ("environment", "method", "model"):
                rows = self._db.execute(f"SELECT DISTINCT {column} FROM runs WHERE {column} != '' "
                                        f"ORDER BY {column}").fetchall()
                facets[column] = [row[0] for row in rows]
        return facets

    def _add_calls(self, run_id: str, calls: list[pb.ModelCall]) -> None:
        rows = [(run_id, call.index, call.purpose, call.SerializeToString()) for call in calls]
        with self._lock:
            self._db.executemany("INSERT OR IGNORE INTO run_calls (run_id, idx, purpose, call) "
                                 "VALUES (?, ?, ?, ?)", rows)

    def _calls(self, run_id: str) -> list[pb.ModelCall]:
        with self._lock:
            rows = self._db.execute("SELECT call FROM run_calls WHERE run_id = ? ORDER BY idx",
                                    (run_id,)).fetchall()
        return [pb.ModelCall.FromString(row[0]) for row in rows]

    async def add_calls(self, run_id: str, calls: list[pb.ModelCall]) -> None:
        if calls:
            await asyncio.to_thread(self._add_calls, run_id, calls)

    async def calls(self, run_id: str) -> list[pb.ModelCall]:
        return await asyncio.to_thread(self._calls, run_id)

    async def list_runs(self, query: RunQuery) -> list[pb.Run]:
        return await asyncio.to_thread(self._list_runs, query)

    async def facets(self) -> dict[str, list[str]]:
        return await asyncio.to_thread(self._facets)

    async def put(self, run: pb.Run) -> None:
        await asyncio.to_thread(self._put, run)

    async def get(self, run_id: str) -> pb.Run | None:
        return await asyncio.to_thread(self._get, run_id)

    async def renew(self, owner: str, run_ids: list[str]) -> None:
        await asyncio.to_thread(self._renew, owner, run_ids)

    async def interrupt_lapsed(self, lease_seconds: float) -> list[str]:
        return await asyncio.to_thread(self._interrupt_lapsed, lease_seconds)

    async def close(self) -> None:
        if self._db is not None:
            with self._lock:
                self._db.close()
            self._db = None
