"""Durable storage of planner runs in SQLite (one row per run, the Run proto).

Runs survive a planner restart, so GetRun answers for finished runs even from
a new process. Writes go through a single connection guarded by a lock and run
in a worker thread so the event loop never blocks on disk.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

from lats_pb import planner_pb2 as pb

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id     TEXT PRIMARY KEY,
    status     INTEGER NOT NULL,
    task_id    TEXT NOT NULL,
    created_at TEXT NOT NULL,
    run        BLOB NOT NULL
)
"""


class RunStore:
    def __init__(self, path: str | Path):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False)
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(_SCHEMA)
            self._db.commit()

    def _put(self, run: pb.Run) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO runs (run_id, status, task_id, created_at, run) "
                "VALUES (?, ?, ?, ?, ?)",
                (run.run_id, run.status, run.task_id, run.created_at, run.SerializeToString()),
            )
            self._db.commit()

    def _get(self, run_id: str) -> pb.Run | None:
        with self._lock:
            row = self._db.execute("SELECT run FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return pb.Run.FromString(row[0]) if row else None

    async def put(self, run: pb.Run) -> None:
        await asyncio.to_thread(self._put, run)

    async def get(self, run_id: str) -> pb.Run | None:
        return await asyncio.to_thread(self._get, run_id)

    def close(self) -> None:
        with self._lock:
            self._db.close()
