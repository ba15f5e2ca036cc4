"""The run store contract, on SQLite and on a real PostgreSQL: runs, heartbeats, leases."""

from __future__ import annotations

import asyncio
import uuid

import psycopg
import pytest

from lats_pb import planner_pb2 as pb
from planner.runs import RunQuery, open_run_store
from planner.runs.postgres import redacted

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(params=["sqlite", "postgresql"])
async def store_location(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "runs.sqlite3")
    # A database of its own per test, on the session's server.
    url = request.getfixturevalue("postgres_url")
    name = f"runs_{uuid.uuid4().hex[:10]}"
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as admin:
        await admin.execute(f"CREATE DATABASE {name}")
    return url.rsplit("/", 1)[0] + "/" + name


async def opened(location):
    store = open_run_store(location)
    await store.open()
    return store


def run(run_id: str, status=pb.RUN_STATUS_RUNNING, owner="planner-a", **result) -> pb.Run:
    message = pb.Run(run_id=run_id, status=status, task_id="game24/900", owner=owner,
                     created_at="2026-11-23T00:00:00+00:00")
    message.result.environment = result.get("environment", "game24@1.0.0")
    message.result.method = result.get("method", "lats")
    message.nodes.add(id="0")
    return message


async def test_runs_round_trip_and_any_opener_sees_them(store_location):
    first, second = await opened(store_location), await opened(store_location)
    try:
        await first.put(run("r1"))
        seen = await second.get("r1")
        assert seen.run_id == "r1" and seen.status == pb.RUN_STATUS_RUNNING
        assert seen.heartbeat_at and seen.nodes[0].id == "0" and seen.owner == "planner-a"
        finished = run("r1", status=pb.RUN_STATUS_SOLVED)
        finished.nodes.add(id="0.0")
        await second.put(finished)
        again = await first.get("r1")
        assert again.status == pb.RUN_STATUS_SOLVED and len(again.nodes) == 2
        assert again.heartbeat_at == seen.heartbeat_at   # a finished run is not renewed
        assert await first.get("nobody") is None
    finally:
        await first.close()
        await second.close()


async def test_lapsed_runs_become_interrupted_and_renewed_ones_do_not(store_location):
    store = await opened(store_location)
    try:
        await store.put(run("alive", owner="a"))
        await store.put(run("dead", owner="b"))
        await store.put(run("done", status=pb.RUN_STATUS_FAILED, owner="b"))
        await asyncio.sleep(1.2)
        await store.renew("a", ["alive", "dead"])      # a only renews its own
        assert await store.interrupt_lapsed(lease_seconds=1.0) == ["dead"]
        dead = await store.get("dead")
        assert dead.status == pb.RUN_STATUS_INTERRUPTED
        assert dead.result.status == pb.RUN_STATUS_INTERRUPTED
        assert "planner b stopped renewing its lease" in dead.result.error
        assert dead.nodes[0].id == "0"                     # its tree is kept
        assert (await store.get("alive")).status == pb.RUN_STATUS_RUNNING
        assert (await store.get("done")).status == pb.RUN_STATUS_FAILED
        assert await store.interrupt_lapsed(lease_seconds=1.0) == []
    finally:
        await store.close()


async def test_concurrent_sweepers_interrupt_each_run_once(store_location):
    stores = [await opened(store_location) for _ in range(3)]
    try:
        for i in range(20):
            await stores[0].put(run(f"r{i}", owner="gone"))
        await asyncio.sleep(1.1)
        swept = await asyncio.gather(*(s.interrupt_lapsed(lease_seconds=1.0) for s in stores))
        everything = [run_id for ids in swept for run_id in ids]
        assert sorted(everything) == sorted(f"r{i}" for i in range(20))
    finally:
        for store in stores:
            await store.close()


async def test_an_older_sqlite_file_is_migrated(tmp_path):
    import sqlite3

    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE runs (run_id TEXT PRIMARY KEY, status INTEGER NOT NULL, "
               "task_id TEXT NOT NULL, created_at TEXT NOT NULL, run BLOB NOT NULL)")
    old = run("old", status=pb.RUN_STATUS_SOLVED)
    db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?)",
               ("old", old.status, old.task_id, old.created_at, old.SerializeToString()))
    db.commit()
    db.close()
    store = await opened(str(path))
    try:
        assert (await store.get("old")).status == pb.RUN_STATUS_SOLVED
        await store.put(run("new"))
        assert (await store.get("new")).heartbeat_at
    finally:
        await store.close()


def test_passwords_never_reach_logs():
    assert redacted("postgresql://lats:s3cret@db:5432/runs") == "postgresql://lats:***@db:5432/runs"
    assert redacted("postgresql://lats@db/runs") == "postgresql://lats@db/runs"


def finished(run_id: str, created: str, status, environment: str, method: str, model: str,
             task_id: str) -> pb.Run:
    message = run(run_id, status=status, environment=environment, method=method)
    message.created_at, message.task_id = created, task_id
    message.result.model, message.result.task_id = model, task_id
    message.result.status = status
    message.result.usage.calls = 7
    message.result.score.score = 1.0 if status == pb.RUN_STATUS_SOLVED else 0.0
    for i in range(50):
        message.nodes.add(id=f"0.{i}", observation="x" * 1000)
    return message


async def test_listing_filters_pages_and_leaves_trees_out(store_location):
    store = await opened(store_location)
    try:
        rows = [
            ("a", "2026-11-23T10:00:00+00:00", pb.RUN_STATUS_SOLVED, "game24@1.0.0", "lats",
             "scripted:toy", "game24/900"),
            ("b", "2026-11-23T11:00:00+00:00", pb.RUN_STATUS_FAILED, "game24@1.0.0", "react",
             "local:qwen2.5-coder-0.5b", "game24/901"),
            ("c", "2026-11-23T12:00:00+00:00", pb.RUN_STATUS_SOLVED, "coderunner@1.0.0", "lats",
             "local:qwen2.5-coder-1.5b", "HumanEval/26"),
            ("d_%", "2026-11-23T13:00:00+00:00", pb.RUN_STATUS_ERROR, "game24@2.0.0", "lats",
             "", "game24/1%_x"),
        ]
        for row in rows:
            await store.put(finished(*row))
        await store.put(run("live", owner="p"))          # RUNNING, created earlier

        async def ids(**filters):
            return [r.run_id for r in await store.list_runs(RunQuery(**filters))]

        assert await ids() == ["d_%", "c", "b", "a", "live"]         # newest first
        listed = (await store.list_runs(RunQuery(limit=1)))[0]
        assert listed.run_id == "d_%" and not listed.nodes and listed.result.usage.calls == 7
        assert listed.result.environment == "game24@2.0.0"
        assert await ids(environment="game24") == ["d_%", "b", "a", "live"]
        assert await ids(environment="game24@1.0.0") == ["b", "a", "live"]
        assert await ids(environment="game2") == []                  # a name, not a prefix
        assert await ids(environment="game24@") == []
        assert await ids(method="lats", statuses=(pb.RUN_STATUS_SOLVED,)) == ["c", "a"]
        assert await ids(statuses=(pb.RUN_STATUS_RUNNING, pb.RUN_STATUS_ERROR)) == ["d_%", "live"]
        assert await ids(model="qwen") == ["c", "b"]
        assert await ids(task="1%_") == ["d_%"]                      # wildcards are literal
        assert await ids(task="HumanEval") == ["c"]
        assert await ids(run_id_prefix="d_") == ["d_%"]
        assert await ids(run_id_prefix="_") == []
        assert await ids(limit=2, offset=1) == ["c", "b"]
        assert await ids(environment="game24'; DROP TABLE runs; --") == []
        assert len(await ids()) == 5
        facets = await store.facets()
        assert facets == {"environment": ["coderunner@1.0.0", "game24@1.0.0", "game24@2.0.0"],
                          "method": ["lats", "react"],
                          "model": ["local:qwen2.5-coder-0.5b", "local:qwen2.5-coder-1.5b",
                                    "scripted:toy"]}
    finally:
        await store.close()


async def test_a_listed_interrupted_run_says_why(store_location):
    store = await opened(store_location)
    try:
        await store.put(run("gone", owner="b"))
        await asyncio.sleep(1.1)
        assert await store.interrupt_lapsed(lease_seconds=1.0) == ["gone"]
        [listed] = await store.list_runs(RunQuery())
        assert listed.status == pb.RUN_STATUS_INTERRUPTED
        assert "stopped renewing its lease" in listed.result.error
    finally:
        await store.close()


def test_queries_refuse_silly_pages():
    with pytest.raises(ValueError, match="limit"):
        RunQuery(limit=0)
    with pytest.raises(ValueError, match="offset"):
        RunQuery(offset=-1)


async def test_model_calls_are_kept_beside_a_run_once_each(store_location):
    first, second = await opened(store_location), await opened(store_location)
    try:
        await first.put(run("r1"))
        calls = [pb.ModelCall(index=i, purpose="act", node_id="0", key="0",
                              prompt=[{"role": "user", "content": f"prompt {i}"}],
                              completions=[f"a{i}", f"b{i}"], actions=[f"a{i}", f"b{i}"])
                 for i in range(3)]
        await first.add_calls("r1", calls[:2])
        await second.add_calls("r1", calls[1:])          # index 1 again: ignored
        changed = pb.ModelCall()
        changed.CopyFrom(calls[0])
        changed.completions[0] = "rewritten"
        await first.add_calls("r1", [changed])            # a stored call is never replaced
        stored = await second.calls("r1")
        assert [c.index for c in stored] == [0, 1, 2]
        assert stored[0].completions[0] == "a0" and stored[2].prompt[0].content == "prompt 2"
        assert await first.calls("nobody") == []
        assert (await first.get("r1")).nodes[0].id == "0"   # the run itself is untouched
    finally:
        await first.close()
        await second.close()


async def test_an_environment_filter_finds_a_family_of_names(store_location):
    """TextArena servers name themselves per game (textarena-TowerOfHanoi-v0): `textarena`
    finds them all, as a name finds every version of itself."""
    store = await opened(store_location)
    try:
        for run_id, environment in (("hanoi", "textarena-TowerOfHanoi-v0@1.0.0"),
                                    ("sudoku", "textarena-Sudoku-v0@1.0.0"),
                                    ("other", "textarenas@1.0.0")):
            await store.put(finished(run_id, "2026-11-23T10:00:00+00:00", pb.RUN_STATUS_FAILED,
                                     environment, "lats", "", "t"))

        async def ids(environment):
            return sorted(r.run_id for r in await store.list_runs(RunQuery(environment=environment)))

        assert await ids("textarena") == ["hanoi", "sudoku"]
        assert await ids("textarena-TowerOfHanoi-v0") == ["hanoi"]
        assert await ids("textarena-Tower") == []  # a whole name before the dash, not a prefix
    finally:
        await store.close()
