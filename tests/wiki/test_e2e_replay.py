"""End to end: a HotPotQA question answered through the three services, replayed.

The environment (`hotpotqa`, offline index, oracle rewards), the LLM gateway
(`--backend replay` of a recording of the embedded 0.5B model, made by
`python -m tests.wiki.record_e2e`) and the planner run as separate processes
on loopback ports. The search, its stream and its EM/F1 score are whatever
the real model did, reproduced exactly.
"""

from __future__ import annotations

import pytest
from lats_pb import planner_pb2 as pb
from lats_pb import environment_pb2 as env_pb

from env_servers.wiki.actions import parse_action
from lats.processes import running_services
from tests.wiki.e2e_setup import CONFIG, MODEL, RECORDING, TASK, env_variables, service_specs, solve


@pytest.fixture(scope="module")
def events(tmp_path_factory):
    tmp_dir = tmp_path_factory.mktemp("hotpotqa-e2e")
    gateway = ["--backend", "replay", "--replay", str(RECORDING)]
    specs = service_specs(gateway, tmp_dir / "runs.sqlite3")
    with running_services(specs, env=env_variables(tmp_dir), timeout=60) as services:
        yield solve(services["planner"].address, services["env"].address, timeout=120)


def of(events, kind):
    return [getattr(e, kind) for e in events if e.WhichOneof("event") == kind]


@pytest.mark.timeout(180)
def test_the_stream_is_a_whole_search_of_the_question(events):
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    started = events[0].started
    assert started.task_id == TASK
    assert started.task == "Are Local H and For Against both from the United States?"
    assert started.reward_mode == env_pb.REWARD_MODE_ORACLE and started.environment == "hotpotqa@1.0.0"
    assert started.config.n_samples == CONFIG["n_samples"]
    assert events[-1].WhichOneof("event") == "finished"
    # every sampled text was stepped: parsed into a Wikipedia action, or refused as
    # invalid when the model wrote no action (it did once, at depth 3)
    added = of(events, "node_added")
    invalid = [n for n in added if n.invalid_action]
    assert len(added) == 10 and [n.id for n in invalid] == ["0.0.0.1"]
    assert all(n.observation.startswith("Invalid action: no action found") for n in invalid)
    assert all(parse_action(n.action) for n in added if not n.invalid_action)
    root_children = [n for n in added if n.id.count(".") == 1]
    assert root_children[0].action.startswith("Thought 1:")
    assert any(n.observation.startswith("Local H is an American rock band") for n in added)
    assert of(events, "node_evaluated") and of(events, "backpropagated")


@pytest.mark.timeout(180)
def test_the_result_is_scored_with_em_and_f1(events):
    result = events[-1].finished
    assert result.model.startswith(MODEL) or MODEL in result.model
    assert result.reward_mode == env_pb.REWARD_MODE_ORACLE and result.task_id == TASK
    assert result.scored
    metrics = dict(result.score.metrics)
    assert set(metrics) == {"em", "f1", "precision", "recall"}
    # What the 0.5B model did: a miss, a repeated miss, then the right yes/no answer
    # (found in iteration 2, after a reflection), scored EM 1 / F1 1.
    assert result.status == pb.RUN_STATUS_SOLVED and result.iterations == 2
    assert list(result.actions) == [
        "Thought 1: I need to search Local H and For Against from the United States and find "
        "which documentary is about them.\nAction 1: Search[Local H and For Against]",
        "Thought 2: Search[Local H and For Against]\nAction 2: Search[Local H and For Against]",
        "Thought 3: Search[Local H and For Against]\nAction 3: Finish[Yes]",
    ]
    assert result.final_observation == "Episode finished, reward = 1" and result.reward == 1
    assert (result.score.score, result.score.success) == (1.0, True)
    assert metrics == {"em": 1.0, "f1": 1.0, "precision": 1.0, "recall": 1.0}
    assert result.score.details == "answer 'Yes', gold 'yes': EM 1, F1 1.000"
    # The recording holds 13 calls; the planner now skips the value call of a sibling
    # expanded after the success was found, so 12 of them are replayed.
    assert sum(1 for _ in RECORDING.open(encoding="utf-8")) == 13
    assert result.usage.calls == 12


@pytest.mark.timeout(180)
def test_the_failed_first_rollout_was_reflected_upon(events):
    first_terminal = of(events, "terminal")[0]
    assert first_terminal.action.endswith("Finish[Local H]")
    assert first_terminal.observation == "Episode finished, reward = 0"
    reflections = of(events, "reflection")
    assert len(reflections) == 1 and reflections[0].text.startswith("The previous reasoning")
    assert [s.node_id for s in of(events, "selected")][:1] == ["0"]
