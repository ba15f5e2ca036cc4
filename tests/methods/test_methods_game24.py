"""Every method on Game of 24 through the real services (three processes on
loopback ports: the game24 environment, the gateway with a scripted model, the
planner), with the planner's accounting checked against the gateway's."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from lats_runtime.processes import running_services
from lats_pb import llm_pb2, llm_pb2_grpc
from lats_pb import planner_pb2 as pb
from lats_pb import planner_pb2_grpc as pb_grpc

SCRIPT = Path(__file__).with_name("game24_methods.json")
TASK = "game24/900"   # 4 5 6 10
SOLUTION = ["6 * 5 = 30 (left: 4 10 30)", "30 - 10 = 20 (left: 4 20)",
            "20 + 4 = 24 (left: 24)", "Answer: 6 * 5 - 10 + 4 = 24"]


@pytest.fixture(scope="module")
def services(tmp_path_factory):
    db = tmp_path_factory.mktemp("planner") / "runs.sqlite3"
    specs = [
        ("env", ["env", "game24"]),
        ("gateway", ["gateway", "--backend", "scripted", "--script", str(SCRIPT)]),
        ("planner", ["planner", "--gateway", "{gateway}", "--db", str(db)]),
    ]
    with running_services(specs) as running:
        yield running


def solve(services, method: str, **config) -> tuple[pb.RunResult, list[pb.SearchEvent]]:
    config.setdefault("max_depth", 4)
    request = pb.SolveRequest(env_address=services["env"].address, task_id=TASK,
                              config=pb.SearchConfig(method=method, seed=3, **config))
    with grpc.insecure_channel(services["planner"].address) as channel:
        events = list(pb_grpc.PlannerStub(channel).Solve(request, timeout=60))
    result = events[-1].finished
    assert result.status != pb.RUN_STATUS_ERROR, result.error
    with grpc.insecure_channel(services["gateway"].address) as channel:
        usage = llm_pb2_grpc.LlmGatewayStub(channel).GetUsage(
            llm_pb2.GetUsageRequest(run_id=events[0].run_id)).usage
    assert (result.usage.calls, result.usage.prompt_tokens, result.usage.completion_tokens) == (
        usage.calls, usage.prompt_tokens, usage.completion_tokens), "planner and gateway disagree"
    assert result.config.method == method and result.model.startswith("scripted")
    return result, events


def of(events, kind):
    return [getattr(e, kind) for e in events if e.WhichOneof("event") == kind]


def test_react_follows_its_first_greedy_idea_into_a_dead_end(services):
    result, events = solve(services, "react", iterations=9)
    assert result.status == pb.RUN_STATUS_FAILED
    assert list(result.actions) == ["4 + 5 = 9 (left: 6 9 10)", "10 - 9 = 1 (left: 1 6)",
                                    "1 * 6 = 6 (left: 6)"]
    assert (result.usage.calls, result.iterations, result.nodes_expanded) == (3, 1, 3)
    assert result.config.iterations == 1 and result.config.temperature == 0.0
    assert result.scored and not result.score.success


def test_react_best_of_k_pays_for_k_trajectories(services):
    result, _ = solve(services, "react_bok", iterations=3)
    assert result.status == pb.RUN_STATUS_FAILED
    assert (result.usage.calls, result.iterations, result.nodes) == (9, 3, 10)


def test_reflexion_learns_from_the_failed_trial_and_solves_the_second(services):
    result, events = solve(services, "reflexion", iterations=3)
    assert result.status == pb.RUN_STATUS_SOLVED and result.score.success
    assert list(result.actions) == SOLUTION
    reflections = of(events, "reflection")
    assert len(reflections) == 1 and "start with 6 * 5" in reflections[0].text
    assert (result.usage.calls, result.iterations) == (3 + 1 + 4, 2)


def test_cot_steps_a_wrong_transcript_without_feedback(services):
    result, events = solve(services, "cot")
    assert result.status == pb.RUN_STATUS_FAILED and result.usage.calls == 1
    assert list(result.actions)[-1] == "1 * 6 = 6 (left: 6)"   # the env ended it there


def test_cot_sc_majority_picks_the_right_transcript(services):
    result, events = solve(services, "cot_sc", iterations=3, n_samples=3)
    assert result.status == pb.RUN_STATUS_SOLVED and list(result.actions) == SOLUTION
    assert (result.usage.calls, result.iterations) == (1, 3)
    assert len([n for n in of(events, "node_added") if n.depth == 1]) == 3


@pytest.mark.parametrize("beam, status", [(1, pb.RUN_STATUS_FAILED), (2, pb.RUN_STATUS_SOLVED)])
def test_tot_bfs_needs_a_beam_of_two_here(services, beam, status):
    result, _ = solve(services, "tot_bfs", iterations=beam, n_samples=2)
    assert result.status == status
    assert result.config.value_weight == 1.0 and not result.config.reflection
    if status == pb.RUN_STATUS_SOLVED:
        assert list(result.actions) == SOLUTION and result.iterations == 4


def test_tot_dfs_prunes_the_dead_branch_and_backtracks(services):
    result, events = solve(services, "tot_dfs", iterations=5, n_samples=2)
    assert result.status == pb.RUN_STATUS_SOLVED and list(result.actions) == SOLUTION
    assert result.iterations == 2 and not of(events, "reflection")
    expanded = [s.node_id for s in of(events, "selected")]
    assert expanded[:2] == ["0", "0.0"] and "0.0.0" not in expanded   # 1 6 pruned


def test_lats_dfs_ablation_reflects_at_each_failed_path_end(services):
    result, events = solve(services, "lats_dfs", iterations=5, n_samples=2)
    assert result.status == pb.RUN_STATUS_SOLVED and list(result.actions) == SOLUTION
    assert len(of(events, "reflection")) == result.iterations - 1 >= 1
    assert not of(events, "backpropagated")            # no MCTS statistics


def test_lats_solves_and_each_ablation_switch_changes_what_it_does(services):
    full, events = solve(services, "lats_paper", n_samples=2, iterations=10)
    assert full.status == pb.RUN_STATUS_SOLVED and list(full.actions) == SOLUTION
    assert any(n.lm_score >= 0 for n in of(events, "node_evaluated"))

    no_lm, events = solve(services, "lats_paper", n_samples=2, iterations=10, lm_value=False)
    assert not no_lm.config.lm_value
    evaluated = [n for n in of(events, "node_evaluated") if not n.terminal]
    assert evaluated and all(n.lm_score == -1 and n.value == n.sc_score for n in evaluated)
    assert no_lm.usage.calls < full.usage.calls

    no_reflection, events = solve(services, "lats_paper", n_samples=2, iterations=10, reflection=False)
    assert not of(events, "reflection") and not no_reflection.config.reflection

    no_sc, events = solve(services, "lats_paper", n_samples=2, iterations=10, value_weight=1.0)
    evaluated = [n for n in of(events, "node_evaluated") if not n.terminal]
    assert all(n.value == pytest.approx(n.lm_score) for n in evaluated[:2])

    hyper, _ = solve(services, "lats_paper", n_samples=3, iterations=2, max_depth=3,
                     exploration_weight=2.0)
    c = hyper.config
    assert (c.n_samples, c.iterations, c.max_depth, c.exploration_weight) == (3, 2, 3, 2.0)
    assert hyper.iterations <= 2


def test_an_unknown_method_is_an_invalid_argument_that_names_the_choices(services):
    request = pb.SolveRequest(env_address=services["env"].address, task_id=TASK,
                              config=pb.SearchConfig(method="bfs"))
    with grpc.insecure_channel(services["planner"].address) as channel:
        with pytest.raises(grpc.RpcError) as error:
            list(pb_grpc.PlannerStub(channel).Solve(request, timeout=30))
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "tot_bfs" in error.value.details()
