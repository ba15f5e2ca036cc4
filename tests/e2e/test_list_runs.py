"""ListRuns on real planner processes: the same runs, filters and pages as
`lats runs list` over the store; any planner sharing a PostgreSQL store lists
the runs another executed; `lats runs --planner` and the run viewer
(`lats serve ui --planner`) read through it; bad requests get INVALID_ARGUMENT
saying what to fix."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import urllib.error
import urllib.request
import uuid

import grpc
import psycopg
import pytest
from click.testing import CliRunner

from lats.cli import main
from lats_runtime.processes import running_services, start_service
from lats_pb import planner_pb2 as pb
from lats_pb import planner_pb2_grpc as pb_grpc
from planner.runs import open_run_store
from tests.e2e.test_game24_search import SCRIPT, TASK

pytestmark = pytest.mark.timeout(180)
ENVIRONMENTS = ("game24@1.0.0", "hotpotqa@1.2", "coderunner@2.0")
METHODS = ("lats", "react", "cot")
STATUSES = (pb.RUN_STATUS_SOLVED, pb.RUN_STATUS_FAILED, pb.RUN_STATUS_ERROR,
            pb.RUN_STATUS_INTERRUPTED)
BULK = 1001                       # one more than the largest page


def stored_run(index: int, method: str | None = None) -> pb.Run:
    run = pb.Run(run_id=f"run-{index:04d}", status=STATUSES[index % 4],
                 task_id=f"task/{index % 5}", created_at=f"2026-11-{1 + index // 100:02d}T"
                 f"{index % 24:02d}:{index % 60:02d}:00+00:00", owner="p")
    result = run.result
    result.environment = ENVIRONMENTS[index % 3]
    result.method = method or METHODS[index % 3]
    result.model = ("local:qwen2.5-coder-0.5b", "scripted:x")[index % 2]
    result.status = run.status
    run.nodes.add(id="0", observation="start", visits=1)
    return run


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("listing") / "runs.sqlite3"

    async def fill():
        runs = open_run_store(str(path))
        await runs.open()
        for index in range(24):
            await runs.put(stored_run(index))
        for index in range(100, 100 + BULK):
            await runs.put(stored_run(index, method="bulk"))
        await runs.close()

    asyncio.run(fill())
    return str(path)


@pytest.fixture(scope="module")
def planner(store):
    # No gateway is needed to list runs: the planner starts without one answering.
    with running_services([("planner", ["planner", "--gateway", "127.0.0.1:1",
                                        "--db", store])], ready=False) as running:
        yield running["planner"].address


def lats(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def listed_by_cli(store: str, *flags: str) -> list[dict]:
    result = lats("runs", "list", "--db", store, "--json", "--limit", "1000", *flags)
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.output.splitlines() if line.strip()]


FILTERS = [
    ({}, ()),
    ({"environment": "game24"}, ("--env", "game24")),
    ({"environment": "hotpotqa@1.2"}, ("--env", "hotpotqa@1.2")),
    ({"method": "react"}, ("--method", "react")),
    ({"status": ["solved", "error"]}, ("--status", "solved", "--status", "error")),
    ({"model": "qwen"}, ("--model", "qwen")),
    ({"task": "task/3", "method": "cot"}, ("--task", "task/3", "--method", "cot")),
]


@pytest.mark.parametrize("filters, flags", FILTERS, ids=[str(f) for f, _ in FILTERS])
def test_list_runs_gives_what_lats_runs_list_gives(store, planner, filters, flags):
    from lats_client import Planner

    with Planner(planner) as client:
        through_planner = client.runs(limit=1000, **filters)
    expected = listed_by_cli(store, *flags)
    assert expected, "the filter should match some runs"
    assert [r.run_id for r in through_planner] == [r["run_id"] for r in expected]
    assert all(r.nodes == () for r in through_planner)
    # `lats runs list --planner` prints the same records as with --db.
    result = lats("runs", "--planner", planner, "list", "--json", "--limit", "1000", *flags)
    assert result.exit_code == 0, result.output
    assert [json.loads(line) for line in result.output.splitlines()] == expected


def test_pages_follow_each_other_to_the_last_run(planner):
    with grpc.insecure_channel(planner) as channel:
        stub = pb_grpc.PlannerStub(channel)
        pages, token = [], ""
        while True:
            page = stub.ListRuns(pb.ListRunsRequest(method="lats", page_size=3,
                                                    page_token=token), timeout=10)
            pages.append([run.run_id for run in page.runs])
            token = page.next_page_token
            if not token:
                break
        whole = stub.ListRuns(pb.ListRunsRequest(method="lats", page_size=100), timeout=10)
        assert [run_id for page in pages for run_id in page] == [r.run_id for r in whole.runs]
        assert [len(page) for page in pages] == [3, 3, 2] and not whole.next_page_token
        # The largest page: exactly 1000 runs, then a page of the one left.
        first = stub.ListRuns(pb.ListRunsRequest(method="bulk", page_size=1000), timeout=30)
        assert len(first.runs) == 1000 and first.next_page_token == "1000"
        last = stub.ListRuns(pb.ListRunsRequest(method="bulk", page_size=1000,
                                                page_token=first.next_page_token), timeout=30)
        assert len(last.runs) == BULK - 1000 and last.next_page_token == ""
        faceted = stub.ListRuns(pb.ListRunsRequest(page_size=1, include_facets=True),
                                timeout=10)
        assert list(faceted.facets.environments) == sorted(ENVIRONMENTS)
        assert list(faceted.facets.methods) == sorted([*METHODS, "bulk"])
        assert list(faceted.facets.models) == ["local:qwen2.5-coder-0.5b", "scripted:x"]
        assert not stub.ListRuns(pb.ListRunsRequest(page_size=1), timeout=10).facets.methods


@pytest.mark.parametrize("request_fields, message", [
    ({"page_token": "abc"}, "page_token 'abc' is not one ListRuns gave"),
    ({"page_token": "-5"}, "page_token"),
    ({"page_size": 1001}, "page_size must be 1..1000"),
    ({"statuses": [99]}, "statuses holds 99, which is no run status"),
    ({"task": "x" * 201}, "task is longer than 200 characters"),
])
def test_bad_list_requests_say_what_to_fix(planner, request_fields, message):
    with grpc.insecure_channel(planner) as channel:
        with pytest.raises(grpc.RpcError) as refused:
            pb_grpc.PlannerStub(channel).ListRuns(pb.ListRunsRequest(**request_fields),
                                                 timeout=10)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert message in refused.value.details()


def test_runs_commands_name_an_unreachable_planner(tmp_path):
    result = CliRunner().invoke(main, ["runs", "list", "--planner", "127.0.0.1:1"])
    assert result.exit_code == 1
    assert "planner at 127.0.0.1:1: UNAVAILABLE" in result.output
    result = CliRunner().invoke(main, ["runs", "export", "x", "--format", "trl", "-o",
                                       str(tmp_path / "out"), "--planner", "127.0.0.1:1"])
    assert result.exit_code == 2 and "pass --db instead of --planner" in result.output


@pytest.fixture
def database(postgres_url):
    name = f"listing_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    return postgres_url.rsplit("/", 1)[0] + "/" + name


def _get_json(url: str):
    with urllib.request.urlopen(url, timeout=10) as reply:
        return json.loads(reply.read())


def test_any_planner_of_a_shared_store_lists_the_runs_another_ran(database):
    from lats_client import Planner

    specs = [("env", ["env", "game24"]),
             ("gateway", ["gateway", "--backend", "scripted", "--script", str(SCRIPT)]),
             ("planner-a", ["planner", "--gateway", "{gateway}", "--db", database]),
             ("planner-b", ["planner", "--gateway", "{gateway}", "--db", database])]
    with running_services(specs) as running:
        with Planner(running["planner-a"].address) as first:
            search = first.solve(running["env"].address, TASK, method="lats_paper", n=2, k=10,
                                 depth=4, seed=7)
            assert search.result().solved
        with Planner(running["planner-b"].address) as second:
            listed = second.runs(environment="game24")
            assert [run.run_id for run in listed] == [search.run_id]
            assert listed[0].status == "solved" and listed[0].result.score.success
            assert len(second.run(search.run_id).nodes) == listed[0].result.nodes
        # The run viewer over planner B: no database credentials needed.
        viewer = start_service("ui", ["ui", "--planner", running["planner-b"].address])
        try:
            base = f"http://{viewer.address}"
            runs = _get_json(f"{base}/api/runs?environment=game24")["runs"]
            assert [run["run_id"] for run in runs] == [search.run_id]
            tree = _get_json(f"{base}/api/run?id={search.run_id}")
            assert tree["status"] == "RUN_STATUS_SOLVED" and len(tree["nodes"]) > 5
            assert _get_json(f"{base}/api/facets")["method"] == ["lats_paper"]
            with pytest.raises(urllib.error.HTTPError) as missing:
                urllib.request.urlopen(f"{base}/api/run?id=nope", timeout=10)
            assert missing.value.code == 404
            # Its planner gone, the viewer says which one did not answer.
            assert running["planner-b"].stop() == 0
            with pytest.raises(urllib.error.HTTPError) as gone:
                urllib.request.urlopen(f"{base}/api/runs", timeout=30)
            assert gone.value.code == 503
            reason = json.loads(gone.value.read())["error"]
            assert f"planner at {running['planner-b'].address}: UNAVAILABLE" in reason
        finally:
            assert viewer.stop() == 0


def test_a_viewer_without_its_planner_does_not_start_and_says_why():
    viewer = subprocess.run([sys.executable, "-m", "lats", "serve", "ui", "--planner",
                             "127.0.0.1:1", "--port", "0"], capture_output=True, text=True,
                            timeout=60)
    assert viewer.returncode == 1
    assert "planner at 127.0.0.1:1: UNAVAILABLE" in viewer.stderr
