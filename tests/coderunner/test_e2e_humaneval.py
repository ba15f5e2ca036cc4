"""End to end: LATS solves a HumanEval task through the three services, replayed.

The code-runner environment (bubblewrap sandbox), the LLM gateway replaying
exchanges recorded from the real local model (Qwen2.5-Coder-0.5B), and the
planner run as separate processes on loopback ports and talk real gRPC. The
model writes its internal tests once (the prompt pack's setup step, passed to
Reset), the search expands programs checked against those tests, and only the
answer is run on the hidden HumanEval tests (Score).

The recorded search (n=2, k=4, seed 4): the model's test-writing reply had no
assert, so the internal tests fell back to the docstring's two examples; the
first program does not compile, is reflected on, and its one expansion gives two
programs that pass both; 5 model calls (the passing programs get no value call).
Re-record (5 calls took
84 s on one core; needs `lats model fetch qwen2.5-coder-0.5b`):
    python -m tests.coderunner.test_e2e_humaneval
then update the expectations below to the new search.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import grpc
import pytest
from lats_pb import environment_pb2 as env_pb

from lats_runtime.processes import running_services
from tests.observability.helpers import scrape, total
from lats_pb import planner_pb2 as pb
from lats_pb import planner_pb2_grpc as pb_grpc

TASK = "HumanEval/16"
RECORDING = (Path(__file__).resolve().parents[1] / "e2e" / "recordings"
             / f"humaneval_{TASK.split('/')[1]}.jsonl")
SEARCH = dict(method="lats_paper", n_samples=2, iterations=4, seed=4)
SANDBOX_ENV = {"LATS_CODERUNNER_SANDBOX": "bwrap"}


def service_specs(gateway: list[str], db: Path) -> list[tuple[str, list[str]]]:
    return [
        ("env", ["env", "coderunner"]),
        ("gateway", ["gateway", *gateway]),
        ("planner", ["planner", "--gateway", "{gateway}", "--db", str(db),
                     "--model-timeout", "1800"]),
    ]


def solve(services, timeout: float) -> list[pb.SearchEvent]:
    request = pb.SolveRequest(env_address=services["env"].address, task_id=TASK,
                              config=pb.SearchConfig(**SEARCH))
    with grpc.insecure_channel(services["planner"].address) as channel:
        return list(pb_grpc.PlannerStub(channel).Solve(request, timeout=timeout))


def of(events, kind):
    return [getattr(e, kind) for e in events if e.WhichOneof("event") == kind]


@pytest.fixture(scope="module")
def searched(tmp_path_factory):
    db = tmp_path_factory.mktemp("planner") / "runs.sqlite3"
    specs = service_specs(["--backend", "replay", "--replay", str(RECORDING)], db)
    specs[0] = ("env", ["env", "coderunner", "--metrics-port", "0"])
    with running_services(specs, env=SANDBOX_ENV) as services:
        events = solve(services, timeout=120)
        return events, scrape(services["env"].metrics_url)


@pytest.fixture(scope="module")
def events(searched):
    return searched[0]


def test_the_sandbox_runs_are_counted_by_purpose_and_outcome(searched):
    events, metrics = searched
    steps = len(of(events, "node_added"))
    assert total(metrics, "lats_sandbox_runs_total", sandbox="bwrap", purpose="step") == steps
    assert total(metrics, "lats_sandbox_runs_total", purpose="step", status="ok",
                 verdict="all_passed") >= 1
    assert total(metrics, "lats_sandbox_runs_total", purpose="hidden", verdict="all_passed") == 1
    assert total(metrics, "lats_sandbox_run_seconds_count", purpose="step") == steps
    assert total(metrics, "lats_sandbox_runs_in_flight") == 0


def test_the_search_solves_the_task_and_the_hidden_tests_verify_it(events):
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    # The setup generation (the model's own tests) is announced before it runs.
    assert [e.WhichOneof("event") for e in events[:3]] == [
        "setup_started", "setup_finished", "started"]
    assert events[0].setup_started.option == "internal_tests"
    assert events[1].setup_finished.text and events[1].setup_finished.seconds >= 0
    started, result = events[2].started, events[-1].finished
    assert started.second_term == "reward" and result.second_term == "reward"
    assert started.task_id == TASK and started.environment.startswith("coderunner@")
    kept = list(started.reset_info["internal_tests"])
    assert kept and all(t.startswith("assert count_distinct_characters(") for t in kept), \
        "the run names the tests its search checks programs with"
    assert started.config.n_samples == 2 and started.config.value_weight == pytest.approx(0.8)
    assert not started.config.simulate and started.task.startswith(
        "def count_distinct_characters(string: str) -> int:")
    assert result.status == pb.RUN_STATUS_SOLVED, result.error
    assert result.reward_mode == env_pb.REWARD_MODE_NONE and result.model
    assert result.scored and result.score.success and result.score.score == 1.0
    assert "hidden test blocks passed" in result.score.details
    assert "def count_distinct_characters" in result.actions[-1]
    assert result.final_observation.startswith("Tested passed:\nassert count_distinct_characters(")
    assert result.final_observation.endswith("Tests failed:")


FIRST_FEEDBACK = "The program does not compile: SyntaxError: invalid syntax."
FAILED_EXAMPLE = ("assert count_distinct_characters('xyzXYZ') == 3 # output: not run: the "
                  "program has a syntax error, expected: 3")


def test_the_internal_tests_fell_back_to_the_docstring_and_the_task_says_so(events):
    # The 0.5B model answered the test-writing prompt with code, not asserts.
    started = of(events, "started")[0]
    assert "no usable assert statement" in started.task
    assert "the 2 example(s) from the docstring" in started.task


def test_the_streamed_tree(events):
    assert [s.node_id for s in of(events, "selected")] == ["0", "0.0"]
    added = of(events, "node_added")
    assert [(n.id, n.parent_id) for n in added] == [
        ("0.0", "0"), ("0.0.0", "0.0"), ("0.0.1", "0.0")]  # root_samples = 1
    first = {n.id: n for n in reversed(of(events, "node_evaluated"))}
    assert {i: n.reward for i, n in first.items()} == {"0.0": 0.0, "0.0.0": 1.0, "0.0.1": 1.0}
    # A program that does not compile says so, and every example shows it was not run.
    assert first["0.0"].observation.startswith(FIRST_FEEDBACK)
    assert FAILED_EXAMPLE in first["0.0"].observation
    # V = 0.8 * LM + 0.2 * (internal pass rate); a passing program is valued by its reward.
    assert first["0.0"].lm_score == 0.0 and first["0.0"].value == pytest.approx(0.0)
    for passing in ("0.0.0", "0.0.1"):
        assert first[passing].terminal and first[passing].value == 1.0
        assert first[passing].lm_score == -1.0          # not valued: it passed
    assert [t.id for t in of(events, "terminal")] == ["0.0.0", "0.0.1"]
    # The failed program is reflected on once; the successes are not.
    assert [r.node_id for r in of(events, "reflection")] == ["0.0"]
    result = events[-1].finished
    assert (result.iterations, result.nodes_expanded, result.nodes) == (2, 2, 4)
    assert result.usage.calls == 5 and len(result.actions) == 2


def test_rewards_are_the_internal_pass_rate_and_values_mix_in_the_lm(events):
    evaluated = {n.id: n for n in reversed(of(events, "node_evaluated"))}
    for node in evaluated.values():
        passed = node.observation.split("\n\nTests failed:")[0].count("\nassert ")
        failed = node.observation.split("Tests failed:")[-1].count("\nassert ")
        if node.invalid_action:
            continue
        assert node.reward == pytest.approx(passed / (passed + failed))
        if not node.terminal and node.lm_score >= 0:   # -1: not valued (a sibling had passed)
            assert node.value == pytest.approx(0.8 * node.lm_score + 0.2 * node.reward)


def test_every_prompt_shows_the_branch_history(events):
    """The replay answers only prompts byte-identical to the recorded ones, so the
    recording shows what the planner sent: the last expansion's prompt (at 0.0)
    holds the earlier program of its branch in full, with its test feedback and
    its reflection."""
    exchanges = [json.loads(line) for line in RECORDING.read_text().splitlines()]
    assert [e["request"]["purpose"] for e in exchanges].count("setup") == 1
    last_act = [e for e in exchanges if e["request"]["purpose"] == "act"][-1]
    branch = last_act["request"]["messages"][-1][1].split("END OF EXAMPLE")[-1]
    nodes = {n.id: n for n in of(events, "node_added")}
    reflections = {r.node_id: r.text for r in of(events, "reflection")}
    observations = {n.id: n.observation for n in of(events, "node_evaluated")}
    position = 0
    for step, node_id in enumerate(["0.0"], start=1):
        for part in (f"[attempt {step}]:\n{nodes[node_id].action}",
                     f"[unit test results of attempt {step}]:\n{observations[node_id]}",
                     f"[self-reflection on attempt {step}]:\n{reflections[node_id]}"):
            found = branch.find(part, position)
            assert found >= position, f"missing or out of order: {part[:60]!r}"
            position = found + len(part)
    assert branch.rstrip().endswith("[attempt 2]:")
