"""Runs in PostgreSQL (psycopg 3): one record shared by planners on any machines.

A small async connection pool serves every call. Heartbeats use the server's
clock (`now()`). `interrupt_lapsed` locks the lapsed rows with FOR UPDATE
SKIP LOCKED, so planners sweeping at the same moment never fight over a row.
"""

from __future__ import annotations

import re

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
    owner        TEXT NOT NULL DEFAULT '',
    heartbeat_at TIMESTAMPTZ,
    environment  TEXT NOT NULL DEFAULT '',
    method       TEXT NOT NULL DEFAULT '',
    model        TEXT NOT NULL DEFAULT '',
    run          BYTEA NOT NULL
);
ALTER TABLE runs ADD COLUMN IF NOT EXISTS result BYTEA;
CREATE INDEX IF NOT EXISTS runs_running ON runs (status, heartbeat_at);
CREATE INDEX IF NOT EXISTS runs_created ON runs (created_at);
CREATE TABLE IF NOT EXISTS run_calls (
    run_id  TEXT NOT NULL,
    idx     INTEGER NOT NULL,
    purpose TEXT NOT NULL,
    call    BYTEA NOT NULL,
    PRIMARY KEY (run_id, idx)
);
"""
_RUNNING = to_wire(RunStatus.RUNNING)   # the status column holds the wire value


def redacted(url: str) -> str:
    """The URL without its password, for logs and messages."""
    return re.sub(r"(//[^:/@]+):[^@]*@", r"\1:***@", url)


class PostgresRunStore(RunStore):
    def __init__(self, url: str, max_connections: int = 4):
        self.location = redacted(url)
        self._url = url
        self._max_connections = max_connections
        self._pool = None

    async def open(self) -> None:
        from psycopg_pool import AsyncConnectionPool

        self._pool = AsyncConnectionPool(self._url, min_size=1, max_size=self._max_connections,
                                         open=False, kwargs={"autocommit": True})
        await self._pool.open(wait=True, timeout=30)
        async with self._pool.connection() as connection:
            # One planner at a time creates the schema.
            await connection.execute("SELECT pg_advisory_lock(72417)")
            try:
                await connection.execute(_SCHEMA)
            finally:
                await connection.execute("SELECT pg_advisory_unlock(72417)")

    async def put(self, run: pb.Run) -> None:
        columns = summary(run)
        names = ", ".join(("run_id", *SUMMARY_COLUMNS, "run"))
        marks = ", ".join(["%s"] * (len(SUMMARY_COLUMNS) + 2))
        updates = ", ".join(f"{name} = EXCLUDED.{name}" for name in (*SUMMARY_COLUMNS, "run"))
        async with self._pool.connection() as connection:
            await connection.execute(
                f"INSERT INTO runs ({names}, heartbeat_at) VALUES ({marks}, "
                f"CASE WHEN %s = {_RUNNING} THEN now() END) "
                f"ON CONFLICT (run_id) DO UPDATE SET {updates}, heartbeat_at = "
                f"CASE WHEN EXCLUDED.status = {_RUNNING} THEN now() "
                "ELSE runs.heartbeat_at END",
                (run.run_id, *(columns[c] for c in SUMMARY_COLUMNS), run.SerializeToString(),
                 int(run.status)))

    async def get(self, run_id: str) -> pb.Run | None:
        async with self._pool.connection() as connection:
            cursor = await connection.execute(
                "SELECT run, heartbeat_at FROM runs WHERE run_id = %s", (run_id,))
            row = await cursor.fetchone()
        if row is None:
            return None
        run = pb.Run.FromString(bytes(row[0]))
        run.heartbeat_at = row[1].isoformat(timespec="milliseconds") if row[1] else ""
        return run

    async def list_runs(self, query: RunQuery) -> list[pb.Run]:
        where, params = query_filters(query, "%s")
        async with self._pool.connection() as connection:
            cursor = await connection.execute(
                f"SELECT {LIST_COLUMNS} FROM runs{where} ORDER BY created_at DESC, run_id DESC "
                "LIMIT %s OFFSET %s", (*params, query.limit, query.offset))
            rows = await cursor.fetchall()
        return [listed_run(*row[:5], row[5].isoformat(timespec="milliseconds") if row[5] else "",
                           *row[6:]) for row in rows]

    async def facets(self) -> dict[str, list[str]]:
        facets = {}
        async with self._pool.connection() as connection:
            for column in ("environment", "method", "model"):
                cursor = await connection.execute(
                    f"SELECT DISTINCT {column} FROM runs WHERE {column} != '' ORDER BY {column}")
                facets[column] = [row[0] for row in await cursor.fetchall()]
        return facets

    async def renew(self, owner: str, run_ids: list[str]) -> None:
        if not run_ids:
            return
        async with self._pool.connection() as connection:
            await connection.execute(
                "UPDATE runs SET heartbeat_at = now() WHERE owner = %s AND status = %s "
                "AND run_id = ANY(%s)", (owner, _RUNNING, run_ids))

    async def interrupt_lapsed(self, lease_seconds: float) -> list[str]:
        async with self._pool.connection() as connection:
            async with connection.transaction():
                cursor = await connection.execute(
                    "SELECT run_id, run, owner FROM runs WHERE status = %s AND "
                    "(heartbeat_at IS NULL OR heartbeat_at < now() - make_interval(secs => %s)) "
                    "FOR UPDATE SKIP LOCKED", (_RUNNING, lease_seconds))
                rows = await cursor.fetchall()
                for run_id, blob, owner in rows:
                    run = interrupted(pb.Run.FromString(bytes(blob)),
                                      f"planner {owner or '?'} stopped renewing its lease "
                                      f"(over {lease_seconds:g}s); it died or lost the store")
                    await connection.execute(
                        "UPDATE runs SET status = %s, run = %s, result = %s WHERE run_id = %s",
                        (int(run.status), run.SerializeToString(),
                         run.result.SerializeToString(), run_id))
        return [row[0] for row in rows]

    async def add_calls(self, run_id: str, calls: list[pb.ModelCall]) -> None:
        if not calls:
            return
        async with self._pool.connection() as connection:
            async with connection.cursor() as cursor:
                await cursor.executemany(
                    "INSERT INTO run_calls (run_id, idx, purpose, call) VALUES (%s, %s, %s, %s) "
                    "ON CONFLICT (run_id, idx) DO NOTHING",
                    [(run_id, call.index, call.purpose, call.SerializeToString())
                     for call in calls])

    async def calls(self, run_id: str) -> list[pb.ModelCall]:
        async with self._pool.connection() as connection:
            cursor = await connection.execute(
                "SELECT call FROM run_calls WHERE run_id = %s ORDER BY idx", (run_id,))
            rows = await cursor.fetchall()
        return [pb.ModelCall.FromString(bytes(row[0])) for row in rows]

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()
            self._pool = None
