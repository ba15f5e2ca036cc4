"""Any OpenEnv environment searched through the bridge (`lats serve env openenv`).

A real OpenEnv server (GridWalk, tests/openenv/gridwalk.py, served by
openenv-core's own app over HTTP and WebSocket) is fronted by real bridge
processes: the conformance kit passes on two replicas with its replay checks;
`lats solve` with a scripted model finds the goal; Describe comes from the
server's metadata and schema plus a pack file; a non-deterministic environment
is refused before serving, and one that drifts later fails the replay that
sees it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from lats_runtime.processes import running_services, start_service
from lats_pb import environment_pb2, environment_pb2_grpc
from lats_runtime.reward_modes import name_of
from tests import kit
from tests.kit import services_together
from tests.openenv.servers import gridwalk_server

HERE = Path(__file__).parent
PACK = HERE / "gridwalk_pack.toml"
SCRIPT = HERE / "gridwalk_script.json"
WAY = ["down", "down", "right", "right", "right", "down"]        # seed-0's way to the goal


@pytest.fixture(scope="module")
def server():
    with gridwalk_server() as url:
        yield url


@pytest.fixture(scope="module")
def gridwalk(server) -> str:
    return f"{server}/steady"


def _serve_bridge(url: str, *extra: str):
    return start_service("bridge", ["env", "openenv", "--url", url, *extra], timeout=120)


@pytest.mark.timeout(300)
def test_the_kit_passes_through_the_bridge_on_two_replicas(gridwalk, tmp_path):
    args = ["env", "openenv", "--url", gridwalk, "--tasks", "5", "--max-remote-sessions", "8"]
    with services_together("bridge", args) as (first, second):
        report = tmp_path / "kit.xml"
        run = subprocess.run(kit.kit_command(first.address, report, replica=second.address),
                             capture_output=True, text=True, timeout=200)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    results = kit.kit_results(report)
    assert len(results) >= 60
    assert kit.skipped(results) == sorted([*kit.BLOB_ONLY, kit.STATES_NO_ANSWER_KEYS, kit.STATES_NO_STATE_KEYS,
                                          *kit.WITHOUT_INLINE_TASKS_ONLY])
    for replay_check in kit.REPLAY_ONLY:
        assert results[replay_check] == "passed", replay_check
    for must_run in ("test_parallel_episodes_stay_independent",
                     "test_grammar_examples_play_in_order_without_error",
                     "test_every_step_counts_and_the_limit_truncates",
                     "test_a_second_replica_answers_identically"):
        assert results[must_run] == "passed", must_run


@pytest.mark.timeout(300)
def test_describe_comes_from_the_server_and_the_pack_and_bad_actions_are_invalid(gridwalk):
    bridge = _serve_bridge(gridwalk, "--pack", str(PACK))
    try:
        with grpc.insecure_channel(bridge.address) as channel:
            stub = environment_pb2_grpc.EnvironmentStub(channel)
            described = stub.Describe(environment_pb2.DescribeRequest(), timeout=10)
            assert (described.name, described.version) == ("openenv-gridwalk", "0.1.0")
            assert described.description.startswith("Walk a 4x4 grid")     # its metadata
            assert list(described.action_grammar.examples) == ["up", "down", "left", "right"]
            assert described.action_grammar.pattern == "^(?:up|down|left|right)$"
            assert described.prompt_pack.instructions.startswith("You walk a 4x4 grid")
            assert described.prompt_pack.search_hints.max_depth == 8
            assert described.limits.max_steps == 12 and name_of(described.reward_mode) == "none"
            assert described.capabilities.score
            tasks = stub.ListTasks(environment_pb2.ListTasksRequest(), timeout=10)
            assert list(tasks.task_ids) == ["seed-0", "seed-1", "seed-2"]

            reset = stub.Reset(environment_pb2.ResetRequest(task_id="seed-0"), timeout=30)
            assert reset.observation.startswith("message: Walk from P to G.\nboard:\nP # . .")
            assert reset.snapshot.WhichOneof("kind") == "replay"
            results = stub.Step(environment_pb2.StepRequest(
                snapshot=reset.snapshot, actions=["sideways", "down", "{not json"]),
                timeout=30).results
            assert results[0].invalid_action and "Input should be" in results[0].observation
            assert not results[1].invalid_action
            assert "You moved down." in results[1].observation
            assert results[2].invalid_action
            snapshot = results[0].snapshot                 # "sideways": invalid, still counted
            for move in WAY:
                snapshot = stub.Step(environment_pb2.StepRequest(
                    snapshot=snapshot, actions=[move]), timeout=30).results[0].snapshot
            assert list(snapshot.replay.actions) == ["sideways", *WAY]
            score = stub.Score(environment_pb2.ScoreRequest(snapshot=snapshot), timeout=30)
            assert score.success and score.score == 1.0 and score.metrics["steps"] == 6
            with pytest.raises(grpc.RpcError) as unknown:
                stub.Reset(environment_pb2.ResetRequest(task_id="seed-3"), timeout=10)
            assert unknown.value.code() == grpc.StatusCode.NOT_FOUND
    finally:
        assert bridge.stop() == 0, bridge.log_tail()


@pytest.fixture(scope="module")
def search_services(gridwalk, tmp_path_factory):
    db = tmp_path_factory.mktemp("planner") / "runs.sqlite3"
    specs = [
        ("env", ["env", "openenv", "--url", gridwalk, "--pack", str(PACK)]),
        ("gateway", ["gateway", "--backend", "scripted", "--script", str(SCRIPT)]),
        ("planner", ["planner", "--gateway", "{gateway}", "--db", str(db)]),
    ]
    with running_services(specs, timeout=120) as running:
        yield running


def test_lats_solve_reaches_the_goal_through_the_bridge(search_services):
    out = subprocess.run(
        [sys.executable, "-m", "lats", "solve", "--planner", search_services["planner"].address,
         "--env", search_services["env"].address, "--task", "seed-0", "--method", "lats_paper", "-n", "2", "-k", "3",
         "-d", "8", "--seed", "1"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    text = out.stdout
    assert "== SOLVED" in text and "verified by the environment: score 1" in text, text[-3000:]
    assert "You reached the goal!" in text and "A wall blocks the way right." in text


@pytest.mark.timeout(200)
def test_a_nondeterministic_environment_is_refused_with_the_reason(server):
    refused = subprocess.run([sys.executable, "-m", "lats", "serve", "env", "openenv",
                              "--url", f"{server}/noisy", "--port", "0"],
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "is not deterministic: task 'seed-0'" in refused.stderr
    assert "after reset it showed" in refused.stderr
    assert "seed every random choice from reset's seed" in refused.stderr


@pytest.mark.timeout(200)
def test_a_replay_that_sees_a_drift_fails_with_failed_precondition(server):
    bridge = _serve_bridge(f"{server}/drifting", "--tasks", "2")   # its check sees four moves
    try:
        with grpc.insecure_channel(bridge.address) as channel:
            stub = environment_pb2_grpc.EnvironmentStub(channel)
            snapshot = stub.Reset(environment_pb2.ResetRequest(task_id="seed-0"),
                                  timeout=30).snapshot
            for move in ["down", "up"] * 3:                # six moves, one remote step each
                snapshot = stub.Step(environment_pb2.StepRequest(
                    snapshot=snapshot, actions=[move]), timeout=30).results[0].snapshot
            with pytest.raises(grpc.RpcError) as drift:
                # Two branches: one steps the pooled session on, the other must rebuild
                # the state by replaying it, and sees move five differ.
                stub.Step(environment_pb2.StepRequest(
                    snapshot=snapshot, actions=["down", "right"]), timeout=30)
        assert drift.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "is not deterministic: replaying task 'seed-0', action 5" in drift.value.details()
    finally:
        assert bridge.stop() == 0, bridge.log_tail()


def test_an_unreachable_server_and_a_missing_url_are_refused():
    missing = subprocess.run([sys.executable, "-m", "lats", "serve", "env", "openenv"],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "--url" in missing.stderr
    unreachable = subprocess.run([sys.executable, "-m", "lats", "serve", "env", "openenv",
                                  "--url", "http://127.0.0.1:1"],
                                 capture_output=True, text=True, timeout=60)
    assert unreachable.returncode == 1
    assert "cannot reach the OpenEnv server at http://127.0.0.1:1" in unreachable.stderr
