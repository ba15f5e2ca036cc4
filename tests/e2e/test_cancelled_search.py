"""A search its client cancels is stored `cancelled` (not `error`), with what it had done."""

from __future__ import annotations

import time
from pathlib import Path

import grpc
import pytest

from lats_runtime.processes import running_services
from lats_pb import planner_pb2 as pb
from lats_pb import planner_pb2_grpc as pb_grpc

SCRIPT = Path(__file__).with_name("game24_4_5_6_10.json")


@pytest.fixture(scope="module")
def services(tmp_path_factory):
    db = tmp_path_factory.mktemp("planner") / "runs.sqlite3"
    specs = [
        ("env", ["env", "game24"]),
        ("gateway", ["gateway", "--backend", "scripted", "--script", str(SCRIPT), "--latency", "1"]),
        ("planner", ["planner", "--gateway", "{gateway}", "--db", str(db)]),
    ]
    with running_services(specs) as running:
        yield running


def test_a_search_its_client_cancels_is_stored_cancelled(services):
    request = pb.SolveRequest(env_address=services["env"].address, task_id="game24/900",
                              config=pb.SearchConfig(method="lats_paper", n_samples=2,
                                                     iterations=10, max_depth=4, seed=7))
    with grpc.insecure_channel(services["planner"].address) as channel:
        stub = pb_grpc.PlannerStub(channel)
        call = stub.Solve(request, timeout=60)
        started = next(call)
        assert started.WhichOneof("event") == "started"
        call.cancel()
        deadline = time.monotonic() + 20
        while True:
            run = stub.GetRun(pb.GetRunRequest(run_id=started.run_id), timeout=10)
            if run.status != pb.RUN_STATUS_RUNNING or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert run.status == pb.RUN_STATUS_CANCELLED
        assert run.result.status == pb.RUN_STATUS_CANCELLED
        assert "cancelled" in run.result.error
        listed = stub.ListRuns(pb.ListRunsRequest(statuses=[pb.RUN_STATUS_CANCELLED]), timeout=10)
        assert started.run_id in [summary.run_id for summary in listed.runs]
