"""Metrics and structured logs follow a run through every service, as operators see them.

Three real services (game24, a scripted gateway, the planner) run with
`--log-format json` and `--metrics-port 0`. After one search: each /metrics
endpoint counts the calls it served, per RPC and status, and its own domain
figures (model calls and tokens per model, environment steps by outcome,
searches by status); and each service's log has JSON lines naming the run id,
which the planner passed on in gRPC metadata.
"""

from __future__ import annotations

import grpc
import pytest

from lats_runtime.processes import running_services
from lats_pb import environment_pb2 as env_pb
from lats_pb import environment_pb2_grpc as env_grpc
from lats_pb import planner_pb2 as pb
from lats_pb import planner_pb2_grpc as pb_grpc
from tests.e2e.test_game24_search import SCRIPT, TASK
from tests.observability.helpers import json_lines, scrape, total

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def searched(tmp_path_factory):
    db = tmp_path_factory.mktemp("planner") / "runs.sqlite3"
    specs = [
        ("env", ["env", "game24", "--metrics-port", "0"]),
        ("gateway", ["gateway", "--backend", "scripted", "--script", str(SCRIPT),
                     "--metrics-port", "0"]),
        ("planner", ["planner", "--gateway", "{gateway}", "--db", str(db),
                     "--metrics-port", "0"]),
    ]
    with running_services(specs, env={"LATS_LOG_FORMAT": "json"}) as services:
        request = pb.SolveRequest(env_address=services["env"].address, task_id=TASK,
                                  config=pb.SearchConfig(method="lats_paper", n_samples=2,
                                                         iterations=10,
                                                         max_depth=4, seed=7))
        with grpc.insecure_channel(services["planner"].address) as channel:
            events = list(pb_grpc.PlannerStub(channel).Solve(request, timeout=60))
            with pytest.raises(grpc.RpcError):
                pb_grpc.PlannerStub(channel).GetRun(pb.GetRunRequest(run_id="nobody"), timeout=5)
        with grpc.insecure_channel(services["env"].address) as channel:
            env = env_grpc.EnvironmentStub(channel)
            env.Reset(env_pb.ResetRequest(task_id=TASK), timeout=5)     # one Reset beside the search
        metrics = {name: scrape(services[name].metrics_url)
                   for name in ("env", "gateway", "planner")}
        yield events, metrics, services
    # (the services stopped: their whole output is in hand)


def test_every_server_counts_its_rpcs_per_method_and_status(searched):
    events, metrics, _ = searched
    assert events[-1].finished.status == pb.RUN_STATUS_SOLVED
    env, gateway, planner = metrics["env"], metrics["gateway"], metrics["planner"]
    assert total(env, "grpc_server_handled_total", grpc_method="Step",
                 grpc_code="OK") >= 4
    assert total(env, "grpc_server_handled_total", grpc_method="Reset", grpc_code="OK") >= 2
    assert total(env, "grpc_server_handled_total", grpc_method="Describe", grpc_code="OK") == 1
    assert total(gateway, "grpc_server_handled_total", grpc_service="lats.v1.LlmGateway",
                 grpc_method="Generate", grpc_code="OK") == events[-1].finished.usage.calls
    assert total(planner, "grpc_server_handled_total", grpc_method="Solve",
                 grpc_type="server_stream", grpc_code="OK") == 1
    assert total(planner, "grpc_server_handled_total", grpc_method="GetRun",
                 grpc_code="NOT_FOUND") == 1
    assert total(env, "grpc_server_handling_seconds_count", grpc_method="Step") >= 4
    # The planner's view of the calls it made, per service.
    assert total(planner, "lats_client_calls_total", service="LLM gateway", method="Generate",
                 code="OK") == events[-1].finished.usage.calls


def test_domain_metrics_count_models_tokens_steps_and_searches(searched):
    events, metrics, _ = searched
    result = events[-1].finished
    gateway, env, planner = metrics["gateway"], metrics["env"], metrics["planner"]
    assert total(gateway, "lats_model_calls_total", backend="scripted", outcome="ok") == \
        result.usage.calls
    assert total(gateway, "lats_model_tokens_total", kind="prompt") == result.usage.prompt_tokens
    assert total(gateway, "lats_model_tokens_total", kind="completion") == \
        result.usage.completion_tokens
    assert total(env, "lats_env_steps_total", environment="game24") == sum(
        1 for e in events if e.WhichOneof("event") == "node_added")
    assert total(env, "lats_env_steps_total", environment="game24", outcome="terminated") >= 1
    assert total(planner, "lats_searches_total", method="lats_paper", status="solved") == 1
    assert total(planner, "lats_searches_in_flight", method="lats_paper") == 0
    assert total(planner, "lats_search_nodes_total", method="lats_paper") == result.nodes


def test_json_log_lines_name_the_run_in_every_service(searched):
    events, _, services = searched
    run_id = events[0].run_id
    for name in ("env", "gateway", "planner"):
        records = json_lines(services[name].log_tail())
        assert records, f"{name} wrote no JSON lines:\n{services[name].log_tail()[-1500:]}"
        for record in records:
            assert {"time", "level", "logger", "message"} <= set(record)
        mine = [r for r in records if r.get("run_id") == run_id]
        assert mine, f"{name} logged nothing for run {run_id}"
        assert all(r["service"] for r in mine)
    planner = [r["message"] for r in json_lines(services["planner"].log_tail())
               if r.get("run_id") == run_id]
    assert any(m.startswith(f"run {run_id} started") for m in planner)
    assert any(m.startswith(f"run {run_id} solved") for m in planner)
    gateway = [r for r in json_lines(services["gateway"].log_tail())
               if r.get("run_id") == run_id and r.get("rpc")]
    assert {r["rpc"] for r in gateway} == {"/lats.v1.LlmGateway/Generate"}
    assert all(r["code"] == "OK" and r["duration_ms"] >= 0 for r in gateway)
