"""The bench's store: a text file of records beside an embedded database.

`results.jsonl` (one JSON record per line) is the bench's durable record: a
record is appended the moment its job finishes, so a killed bench loses at
most the jobs in flight, and the file can be committed and carried to
another machine, where `--resume` continues from it. The SQLite file
(`results` one row per job, `sessions` numbering each invocation) is an
index rebuilt from the text file whenever it lacks records the file has; a
later line for the same job (a retried error) replaces an earlier one.
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


RECORDS_NAME = "results.jsonl"


class BenchStore:
    def __init__(self, path: str | Path, records_path: str | Path | None = None):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.records_path = Path(records_path) if records_path else self.path.with_name(
            RECORDS_NAME)
        self._db = sqlite3.connect(self.path)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)
        self._db.commit()
        self._load_text_records()

    def _load_text_records(self) -> None:
        """Adds the text file's records the database lacks (a bench carried over as text)."""
        if not self.records_path.exists():
            return
        for line in self.records_path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                self._insert(json.loads(line))
        self._db.commit()

    def _insert(self, record: dict) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO results (job_key, session, task_id, label, status, "
            "finished_at, record) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (record["job_key"], record["session"], record["task_id"], record["label"],
             record["status"], record["finished_at"], json.dumps(record, ensure_ascii=False)))

    def new_session(self, argv: Iterable[str]) -> int:
        """A new session number, after every session the records name."""
        now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        last = max([0, *(json.loads(row[0])["session"] for row in
                         self._db.execute("SELECT record FROM results"))])
        cursor = self._db.execute("SELECT COALESCE(MAX(id), 0) FROM sessions")
        number = max(last, cursor.fetchone()[0]) + 1
        self._db.execute("INSERT INTO sessions (id, started_at, argv) VALUES (?, ?, ?)",
                         (number, now, json.dumps(list(argv))))
        self._db.commit()
        return number

    def put(self, record: dict) -> None:
        """Stores (or, for a retried job, replaces) one record: appended to the text
        file, then committed to the index."""
        with open(self.records_path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._insert(record)
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
