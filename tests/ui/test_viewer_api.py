"""The run viewer's HTTP API on a real socket over a SQLite run store: lists,
filters, one run, the live stream's fallback to the stored record, bad input,
security headers, metrics and the vendored assets."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import socket

import pytest
from aiohttp.test_utils import TestClient, TestServer

from lats.ui.app import STATIC, make_app
from lats_pb import planner_pb2 as pb
from planner.runs import open_run_store

pytestmark = pytest.mark.timeout(60)


def a_run(run_id: str, status=pb.RUN_STATUS_SOLVED, created="2026-11-23T10:00:00+00:00",
          environment="game24@1.0.0", method="lats", owner_address="") -> pb.Run:
    run = pb.Run(run_id=run_id, status=status, task_id="game24/900", created_at=created,
                 owner="p", owner_address=owner_address)
    run.result.environment, run.result.method, run.result.model = environment, method, "scripted:x"
    run.result.status = status
    run.nodes.add(id="0", observation="4 5 6 10", visits=3, value=0.25, lm_score=-1)
    run.nodes.add(id="0.0", parent_id="0", depth=1, action="4 + 5 = 9", visits=2, value=0.5,
                  lm_score=0.7, sc_score=0.5, sample_count=1)
    return run


@pytest.fixture
async def viewer(tmp_path):
    store = open_run_store(str(tmp_path / "runs.sqlite3"))
    await store.open()
    await store.put(a_run("done-1"))
    await store.put(a_run("done-2", status=pb.RUN_STATUS_FAILED, method="react",
                          created="2026-11-23T11:00:00+00:00"))
    client = TestClient(TestServer(make_app(store, poll_seconds=0.1, check_seconds=1.0)))
    await client.start_server()
    yield client, store
    await client.close()
    await store.close()


async def test_lists_filter_and_page(viewer):
    client, _ = viewer
    reply = await client.get("/api/runs")
    assert reply.status == 200
    body = await reply.json()
    assert [r["run_id"] for r in body["runs"]] == ["done-2", "done-1"] and not body["more"]
    assert "nodes" not in body["runs"][0] or body["runs"][0]["nodes"] == []
    assert body["runs"][0]["status"] == "RUN_STATUS_FAILED"
    body = await (await client.get("/api/runs?method=lats&status=solved")).json()
    assert [r["run_id"] for r in body["runs"]] == ["done-1"]
    body = await (await client.get("/api/runs?limit=1")).json()
    assert len(body["runs"]) == 1 and body["more"]
    body = await (await client.get("/api/runs?limit=1&offset=1")).json()
    assert [r["run_id"] for r in body["runs"]] == ["done-1"] and not body["more"]
    facets = await (await client.get("/api/facets")).json()
    assert facets["method"] == ["lats", "react"] and facets["environment"] == ["game24@1.0.0"]


@pytest.mark.parametrize("query, message", [
    ("limit=zero", "limit must be a whole number"),
    ("limit=0", "limit must be 1..1000"),
    ("offset=-3", "offset must be"),
    ("status=happy", "unknown status 'happy'"),
    ("task=" + "x" * 500, "task is longer than 200 characters"),
])
async def test_bad_queries_say_what_to_fix(viewer, query, message):
    client, _ = viewer
    reply = await client.get(f"/api/runs?{query}")
    assert reply.status == 400
    assert message in (await reply.json())["error"]


async def test_one_run_and_unknown_runs(viewer):
    client, _ = viewer
    run = await (await client.get("/api/run?id=done-1")).json()
    assert [n["id"] for n in run["nodes"]] == ["0", "0.0"]
    assert run["nodes"][1]["visits"] == 2 and run["nodes"][0]["lm_score"] == -1
    for path, status in (("/api/run?id=nobody", 404), ("/api/run", 400),
                         ("/api/events?id=nobody", 404)):
        reply = await client.get(path)
        assert reply.status == status and (await reply.json())["error"]


def frames(text: str) -> list[tuple[str, dict]]:
    found = []
    for block in text.split("\n\n"):
        kind = re.search(r"^event: (\w+)$", block, re.M)
        data = re.search(r"^data: (.*)$", block, re.M)
        if kind and data:
            found.append((kind.group(1), json.loads(data.group(1))))
    return found


async def test_a_finished_run_streams_its_record_then_ends(viewer):
    client, _ = viewer
    reply = await client.get("/api/events?id=done-1")
    assert reply.headers["Content-Type"].startswith("text/event-stream")
    got = frames(await reply.text())
    assert [kind for kind, _ in got] == ["snapshot", "end"]
    assert got[0][1]["run_id"] == "done-1"


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("owner_address", ["", "127.0.0.1:{port}"])
async def test_a_running_run_without_a_reachable_planner_follows_the_store(viewer, owner_address):
    client, store = viewer
    running = a_run("live", status=pb.RUN_STATUS_RUNNING,
                    owner_address=owner_address.format(port=closed_port()))
    await store.put(running)

    async def grow_then_finish():
        await asyncio.sleep(0.4)
        running.nodes.add(id="0.1", parent_id="0", depth=1, action="6 * 5 = 30")
        await store.put(running)
        await asyncio.sleep(0.4)
        running.status = running.result.status = pb.RUN_STATUS_SOLVED
        await store.put(running)

    writer = asyncio.create_task(grow_then_finish())
    reply = await client.get("/api/events?id=live")
    got = frames(await reply.text())
    await writer
    kinds = [kind for kind, _ in got]
    assert kinds[-1] == "end" and set(kinds[:-1]) == {"snapshot"}
    sizes = [len(data["nodes"]) for kind, data in got if kind == "snapshot"]
    assert sizes[0] == 2 and sizes[-1] == 3
    assert got[-2][1]["status"] == "RUN_STATUS_SOLVED"


async def test_pages_forbid_off_site_assets_and_framing(viewer):
    client, _ = viewer
    for path in ("/", "/run?id=done-1", "/static/tree.js", "/api/runs"):
        reply = await client.get(path)
        assert reply.status == 200, path
        policy = reply.headers["Content-Security-Policy"]
        assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
        assert reply.headers["X-Content-Type-Options"] == "nosniff"
    page = await (await client.get("/run?id=done-1")).text()
    assert "http://" not in page and "https://" not in page
    for script in re.findall(r'src="([^"]+)"', page):
        assert script.startswith("/static/"), script
        assert (await client.get(script)).status == 200
    assert (await client.get("/static/../app.py")).status in (403, 404)


async def test_health_and_metrics(viewer):
    client, _ = viewer
    assert (await (await client.get("/healthz")).text()).strip() == "ok"
    await client.get("/api/runs")
    text = await (await client.get("/metrics")).text()
    assert 'lats_ui_requests_total{code="200",route="/api/runs"}' in text


async def test_healthz_says_not_ready_while_the_run_store_cannot_be_read(viewer):
    client, store = viewer
    await store.close()  # the store gone: the viewer cannot serve a page of runs

    async def unreadable(run_id):
        raise ConnectionError("database is down")

    store.get = unreadable
    reply = await client.get("/healthz")
    assert reply.status == 503 and "database is down" in await reply.text()


def test_the_vendored_d3_is_the_one_its_readme_names():
    readme = (STATIC / "vendor" / "README.md").read_text()
    digest = hashlib.sha256((STATIC / "vendor" / "d3.min.js").read_bytes()).hexdigest()
    assert digest in readme
    assert (STATIC / "vendor" / "LICENSE-d3.txt").read_text().startswith("Copyright")
