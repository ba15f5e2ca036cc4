"""End to end on WebShop: the environment server, the LLM gateway and the
planner as three processes on loopback ports, with the model's answers
replayed from a recording of the embedded 0.5B model (qwen2.5-coder-0.5b).

The replayed Solve must reproduce the recorded run event for event, and the
score the planner reports must be the one the environment gives when the
chosen actions are played again in a fresh episode. Re-record with
`python -m tests.webshop.e2e_run --record` when the catalog, the page text
or the prompt pack changes (the replay then finds no recording and fails
with FAILED_PRECONDITION naming the missing prompt).
"""

from __future__ import annotations

import json

import grpc
import pytest

from lats.processes import running_services
from lats_pb import environment_pb2 as env_pb
from lats_pb import environment_pb2_grpc as env_grpc
from lats_pb import planner_pb2 as pb
from tests.webshop.e2e_run import (
    EXPECTED,
    RECORDING,
    SOLVE_CONFIG,
    TASK,
    services_spec,
    solve,
    summary,
)


@pytest.fixture(scope="module")
def services(store, tmp_path_factory):
    db = tmp_path_factory.mktemp("planner") / "runs.sqlite3"
    specs = services_spec(db, ["--backend", "replay", "--replay", str(RECORDING)])
    with running_services(specs, timeout=60) as running:
        yield running


@pytest.fixture(scope="module")
def events(services):
    return solve(services["planner"].address, services["env"].address, timeout=120)


def of(events, kind):
    return [getattr(e, kind) for e in events if e.WhichOneof("event") == kind]


@pytest.mark.timeout(180)
def test_the_replayed_run_streams_the_recorded_search(events):
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    started = events[0].started
    assert started.task_id == TASK and started.environment.startswith("webshop@")
    assert started.reward_mode == env_pb.REWARD_MODE_ORACLE
    assert started.task.startswith("WebShop\nInstruction:\n")
    config = started.config
    assert (config.n_samples, config.iterations, config.max_depth) == (
        SOLVE_CONFIG["n_samples"], SOLVE_CONFIG["iterations"], SOLVE_CONFIG["max_depth"])
    result = events[-1].finished
    assert result.status != pb.RUN_STATUS_ERROR, result.error
    assert result.model == "replay:qwen2.5-coder-0.5b"
    assert summary(events) == json.loads(EXPECTED.read_text("utf-8"))
    first = [n for n in of(events, "node_added") if n.depth == 1]
    assert first and all(n.action.lower().startswith("search") for n in first), \
        "the recorded model opens with a search"
    evaluated = of(events, "node_evaluated")
    assert evaluated and all(0.0 <= n.value <= 1.0 for n in evaluated)


@pytest.mark.timeout(60)
def test_the_reported_score_is_what_the_environment_gives(services, events):
    result = events[-1].finished
    assert result.scored
    with grpc.insecure_channel(services["env"].address) as channel:
        env = env_grpc.EnvironmentStub(channel)
        snapshot = env.Reset(env_pb.ResetRequest(task_id=TASK), timeout=30).snapshot
        step = None
        for action in result.actions:
            step, = env.Step(env_pb.StepRequest(snapshot=snapshot, actions=[action]),
                             timeout=30).results
            snapshot = step.snapshot
        score = env.Score(env_pb.ScoreRequest(snapshot=snapshot), timeout=30)
    assert step is not None and step.observation == result.final_observation
    assert (score.score, score.success) == (result.score.score, result.score.success)
    assert score.details == result.score.details
    if step.terminated:
        assert step.reward == score.score == result.reward


def test_the_recording_came_from_the_embedded_model():
    records = [json.loads(line) for line in RECORDING.read_text("utf-8").splitlines() if line]
    assert records and {r["model"] for r in records} == {"qwen2.5-coder-0.5b"}
    purposes = {r["request"]["purpose"] for r in records}
    assert purposes == {"act", "value", "reflect"}
