"""The bench's embedded database: one SQLite file per bench directory.

`results` holds one row per finished job (its key, a few columns to query by,
and the whole record as JSON); a row is committed as soon as its job finishes,
so a killed bench loses at most the jobs in flight. `sessions` numbers each
invocation (a resumed bench is a new session; records name theirs).
"""

from __future__ import annotations

import datetime
import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    started_at TEXT NOT NULL,
    argv       TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS results (
    job_key     TEXT PRIMARY KEY,
    session     INTEGER NOT NULL,
    task_id     TEXT NOT NULL,
    label       TEXT NOT NULL,
    status      TEXT NOT NULL,
    finished_at TEXT NOT NULL,
    record      TEXT NOT NULL
);
"""


class BenchStore:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)
        self._db.commit()

    def new_session(self, argv: Iterable[str]) -> int:
        now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        cursor = self._db.execute("INSERT INTO sessions (started_at, argv) VALUES (?, ?)",
                                  (now, json.dumps(list(argv))))
        self._db.commit()
        return int(cursor.lastrowid)

    def put(self, record: dict) -> None:
        """Stores (or, for a retried job, replaces) one record and commits."""
        self._db.execute(
            "INSERT OR REPLACE INTO results (job_key, session, task_id, label, status, "
            "finished_at, record) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (record["job_key"], record["session"], record["task_id"], record["label"],
             record["status"], record["finished_at"], json.dumps(record, ensure_ascii=False)))
        self._db.commit()

    def done_keys(self, include_errors: bool = True) -> set[str]:
        query = "SELECT job_key FROM results"
        if not include_errors:
            query += " WHERE status != 'error'"
        return {row[0] for row in self._db.execute(query)}

    def records(self) -> list[dict]:
        """All records, in the order they finished."""
        rows = self._db.execute("SELECT record FROM results ORDER BY finished_at, rowid")
        return [json.loads(row[0]) for row in rows]

    def count(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM results").fetchone()[0]

    def export_jsonl(self, path: str | Path) -> int:
        """Writes every record as one JSON line; returns how many."""
        records = self.records()
        with open(path, "w", encoding="utf-8") as handle:
            for record in records:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        return len(records)

    def close(self) -> None:
        self._db.close()
