"""End to end on WebShop: `lats` through the three services, replayed.

The environment server (generated catalog, honest rewards), the LLM gateway
replaying a recording of the embedded 1.5B model (tests/webshop/e2e_search.py)
and the planner run as separate processes on loopback ports. The replay
reproduces the recorded search event for event, the search went back to an
earlier snapshot, and the score the planner reports is the one the
environment gives when the chosen actions are played again in a fresh
episode.
"""

from __future__ import annotations

import grpc
import pytest

from env_servers.webshop.actions import parse_action
from lats_pb import environment_pb2 as env_pb
from lats_pb import environment_pb2_grpc as env_grpc
from lats_runtime.processes import running_services
from tests.recorded_search import of
from tests.webshop.e2e_search import SEARCH


@pytest.fixture(scope="module")
def events(store, tmp_path_factory):
    return SEARCH.replay(tmp_path_factory.mktemp("webshop-e2e"))


@pytest.mark.timeout(300)
def test_the_replay_is_the_recorded_search(events):
    SEARCH.check_replay(events, env_pb.REWARD_MODE_HONEST)
    assert events[0].started.task.startswith("WebShop\nInstruction:\n")


@pytest.mark.timeout(300)
def test_every_step_parsed_every_value_scored_and_the_search_went_back(events):
    SEARCH.check_steps(events, parse_action)
    assert all(n.reward == 0 for n in of(events, "node_added")), "honest: no step is rewarded"


@pytest.mark.timeout(120)
def test_the_reported_score_is_what_the_environment_gives(events, tmp_path):
    result = events[-1].finished
    assert result.scored
    specs = [("env", ["env", "webshop"])]
    with running_services(specs, env=SEARCH.env_vars, timeout=120) as services, \
            grpc.insecure_channel(services["env"].address) as channel:
        env = env_grpc.EnvironmentStub(channel)
        snapshot = env.Reset(env_pb.ResetRequest(task_id=SEARCH.task), timeout=30).snapshot
        step = None
        for action in result.actions:
            step, = env.Step(env_pb.StepRequest(snapshot=snapshot, actions=[action]),
                             timeout=30).results
            snapshot = step.snapshot
        score = env.Score(env_pb.ScoreRequest(snapshot=snapshot), timeout=30)
    assert step is not None and step.observation == result.final_observation
    assert (score.score, score.success) == (result.score.score, result.score.success)
    assert score.details == result.score.details


def test_the_recording_came_from_the_embedded_model():
    records = SEARCH.exchanges()
    assert records and {r["model"] for r in records} == {SEARCH.model}
    assert {"act", "value"} <= {r["request"]["purpose"] for r in records}
