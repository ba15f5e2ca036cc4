"""End to end: three services as separate processes on loopback ports.

The Game-of-24 environment server, the LLM gateway (scripted backend, a
zero-latency deterministic model) and the planner talk real gRPC. Solve runs
LATS on game24/900 (4 5 6 10); the script makes the first rollout fail, so the
test sees a reflection, a UCT switch to the other branch, and a solution the
environment verifies.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from lats_runtime.processes import running_services, start_service
from lats_pb import planner_pb2 as pb
from lats_pb import environment_pb2 as env_pb
from lats_pb import planner_pb2_grpc as pb_grpc

SCRIPT = Path(__file__).with_name("game24_4_5_6_10.json")
TASK = "game24/900"


@pytest.fixture(scope="module")
def services(tmp_path_factory):
    db = tmp_path_factory.mktemp("planner") / "runs.sqlite3"
    specs = [
        ("env", ["env", "game24"]),
        ("gateway", ["gateway", "--backend", "scripted", "--script", str(SCRIPT)]),
        ("planner", ["planner", "--gateway", "{gateway}", "--db", str(db)]),
    ]
    with running_services(specs) as running:
        running["db"] = db
        yield running


def solve(services, **config) -> list[pb.SearchEvent]:
    """A search with the paper's LATS (the script was written for its calls)."""
    config.setdefault("method", "lats_paper")
    request = pb.SolveRequest(env_address=services["env"].address, task_id=TASK,
                              config=pb.SearchConfig(n_samples=2, iterations=10, max_depth=4,
                                                     seed=7, **config))
    with grpc.insecure_channel(services["planner"].address) as channel:
        return list(pb_grpc.PlannerStub(channel).Solve(request, timeout=60))


def of(events, kind):
    return [getattr(e, kind) for e in events if e.WhichOneof("event") == kind]


def test_solve_streams_a_search_that_reflects_then_solves(services):
    events = solve(services)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert events[0].WhichOneof("event") == "started"
    started = events[0].started
    assert (started.task_id, started.environment) == (TASK, "game24@" + started.environment.split("@")[1])
    assert started.config.n_samples == 2 and started.config.iterations == 10

    # Iteration 1: root expanded into two children, each evaluated on its own.
    added = {n.id: n for n in of(events, "node_added")}
    assert added["0.0"].action == "4 + 5 = 9 (left: 6 9 10)"
    assert added["0.1"].action == "6 * 5 = 30 (left: 4 10 30)"
    evaluated = {n.id: n for n in reversed(of(events, "node_evaluated"))}  # first evaluation
    assert evaluated["0.0"].lm_score == pytest.approx(7 / 9)
    assert evaluated["0.1"].lm_score == pytest.approx(4 / 9)
    assert evaluated["0.0"].sc_score == pytest.approx(0.5)
    assert evaluated["0.0"].value == pytest.approx(0.5 * 7 / 9 + 0.5 * 0.5)

    # ...the greedy rollout hits a dead end; the failure is backpropagated and reflected on.
    terminals = of(events, "terminal")
    dead_end = next(n for n in terminals if n.reward == 0)
    assert dead_end.id == "0.0.0.0" and "(left: 6)" in dead_end.action
    backprops = of(events, "backpropagated")
    assert backprops[0].reward == 0.0 and backprops[0].leaf_id == "0.0.0.0"
    root, first = backprops[0].path[0], backprops[0].path[1]
    assert (root.visits, first.visits) == (2, 2)
    assert first.value == pytest.approx((0.5 * 7 / 9 + 0.5 * 0.5) / 2)
    reflections = of(events, "reflection")
    assert len(reflections) == 1 and reflections[0].node_id == "0.0.0.0"

    # Iteration 2: UCT picks the other root child; the script answers there only
    # when the reflection is in the prompt, and the rollout solves the puzzle.
    selected = of(events, "selected")
    assert [s.node_id for s in selected] == ["0", "0.1"]
    final = backprops[-1]
    assert final.reward == 1.0
    assert [n.visits for n in final.path] == [3, 2, 2, 2, 2]

    result = events[-1].finished
    assert result.status == pb.RUN_STATUS_SOLVED
    assert list(result.actions) == ["6 * 5 = 30 (left: 4 10 30)", "30 - 10 = 20 (left: 4 20)",
                                    "20 + 4 = 24 (left: 24)", "Answer: 6 * 5 - 10 + 4 = 24"]
    assert result.scored and result.score.success and result.score.score == 1.0
    assert result.iterations == 2 and result.nodes_expanded == 6
    assert result.usage.calls > 0 and result.usage.prompt_tokens > 0
    assert result.model.startswith("scripted") and result.reward_mode == env_pb.REWARD_MODE_NONE

    # The run is stored with its whole tree.
    with grpc.insecure_channel(services["planner"].address) as channel:
        run = pb_grpc.PlannerStub(channel).GetRun(pb.GetRunRequest(run_id=events[0].run_id))
    assert run.status == pb.RUN_STATUS_SOLVED and len(run.nodes) == result.nodes
    assert list(run.reflections) == [reflections[0].text]


def test_search_without_reflection_cannot_use_the_lesson(services):
    events = solve(services, reflection=False)
    result = events[-1].finished
    # The script only continues the 6 * 5 branch when the lesson is in the prompt.
    assert result.status == pb.RUN_STATUS_ERROR
    assert "FAILED_PRECONDITION" in result.error and not of(events, "reflection")
    assert result.iterations == len(of(events, "iteration")) > 0, "the error keeps the progress"


def test_bad_requests_get_typed_errors(services):
    with grpc.insecure_channel(services["planner"].address) as channel:
        stub = pb_grpc.PlannerStub(channel)
        with pytest.raises(grpc.RpcError) as missing:
            list(stub.Solve(pb.SolveRequest(task_id=TASK), timeout=10))
        assert missing.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        with pytest.raises(grpc.RpcError) as bad_n:
            list(stub.Solve(pb.SolveRequest(env_address=services["env"].address, task_id=TASK,
                                            config=pb.SearchConfig(n_samples=1000)), timeout=10))
        assert bad_n.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        with pytest.raises(grpc.RpcError) as whole_answers_only:
            list(stub.Solve(pb.SolveRequest(env_address=services["env"].address, task_id=TASK,
                                            config=pb.SearchConfig(method="best_of_n")),
                            timeout=10))
        assert whole_answers_only.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "react_bok" in whole_answers_only.value.details()
        with pytest.raises(grpc.RpcError) as unreachable:
            list(stub.Solve(pb.SolveRequest(env_address="127.0.0.1:1", task_id=TASK), timeout=30))
        assert unreachable.value.code() == grpc.StatusCode.UNAVAILABLE
        with pytest.raises(grpc.RpcError) as unknown:
            stub.GetRun(pb.GetRunRequest(run_id="nope"), timeout=10)
        assert unknown.value.code() == grpc.StatusCode.NOT_FOUND
        stored = len(stub.ListRuns(pb.ListRunsRequest(page_size=1000), timeout=10).runs)
        with pytest.raises(grpc.RpcError) as no_such_task:
            list(stub.Solve(pb.SolveRequest(env_address=services["env"].address,
                                            task_id="game24/99999"), timeout=30))
        assert no_such_task.value.code() == grpc.StatusCode.NOT_FOUND
        assert "task_id 'game24/99999' is not a task of game24" in no_such_task.value.details()
        after = len(stub.ListRuns(pb.ListRunsRequest(page_size=1000), timeout=10).runs)
        assert after == stored, "a Solve that cannot start stores no run"


def test_runs_survive_a_planner_restart(services):
    events = solve(services)
    run_id = events[0].run_id
    planner = start_service("planner2", ["planner", "--gateway", services["gateway"].address,
                                         "--db", str(services["db"])])
    try:
        with grpc.insecure_channel(planner.address) as channel:
            run = pb_grpc.PlannerStub(channel).GetRun(pb.GetRunRequest(run_id=run_id), timeout=10)
        assert run.status == pb.RUN_STATUS_SOLVED and run.result.score.success
    finally:
        assert planner.stop() == 0


def test_lats_solve_prints_the_search_as_it_grows(services):
    out = subprocess.run(
        [sys.executable, "-m", "lats", "solve", "--planner", services["planner"].address,
         "--env", services["env"].address, "--task", TASK, "-n", "2", "-k", "10", "-d", "4",
         "--seed", "7", "--method", "lats_paper"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "iteration 1" in text and "iteration 2" in text
    assert "reflection on 0.0.0.0" in text
    assert "== SOLVED" in text and "verified by the environment: score 1" in text
    assert "Answer: 6 * 5 - 10 + 4 = 24" in text


def test_lats_fallback_searches_the_fallback_environment_after_a_failure(services):
    env = services["env"].address
    request = pb.SolveRequest(env_address=env, task_id=TASK, config=pb.SearchConfig(
        method="lats_fallback", fallback_env_address=env, n_samples=2, iterations=1,
        max_depth=4, seed=7))
    with grpc.insecure_channel(services["planner"].address) as channel:
        events = list(pb_grpc.PlannerStub(channel).Solve(request, timeout=60))
    result = events[-1].finished
    assert len(of(events, "started")) == 2          # the first search, then the fallback
    assert result.status == pb.RUN_STATUS_FAILED and result.iterations == 2
    assert "fallback search" in result.stop_reason and result.method == "lats_fallback"
    assert len(of(events, "reflection")) == 2
