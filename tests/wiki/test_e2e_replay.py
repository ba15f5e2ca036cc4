"""End to end: `lats` answers a HotPotQA question through the three services, replayed.

The environment (`hotpotqa`, offline index, honest rewards), the LLM gateway
replaying a recording of the embedded 1.5B model (tests/wiki/e2e_search.py)
and the planner run as separate processes on loopback ports. The replay
reproduces the recorded search event for event; the search went back to an
earlier snapshot; its value replies all parsed; the gold answer reached only
Score.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
from lats_pb import environment_pb2 as env_pb

from env_servers.wiki.actions import parse_action
from tests.recorded_search import of
from tests.wiki.e2e_search import SEARCH


@pytest.fixture(scope="module")
def events(tmp_path_factory, index_path):
    scratch = tmp_path_factory.mktemp("hotpotqa-e2e")
    env = dict(SEARCH.env_vars, LATS_WIKI_INDEX=str(index_path),
               LATS_WIKI_CACHE_DIR=str(scratch / "wiki-cache"))
    return dataclasses.replace(SEARCH, env_vars=env).replay(scratch)


@pytest.mark.timeout(300)
def test_the_replay_is_the_recorded_search(events):
    SEARCH.check_replay(events, env_pb.REWARD_MODE_HONEST)


@pytest.mark.timeout(300)
def test_every_step_parsed_every_value_scored_and_the_search_went_back(events):
    SEARCH.check_steps(events, parse_action)


@pytest.mark.timeout(300)
def test_in_honest_mode_no_step_is_rewarded_and_score_alone_sees_the_gold(events):
    assert all(n.reward == 0 for n in of(events, "node_added"))
    result = events[-1].finished
    assert result.scored and set(result.score.metrics) == {"em", "f1", "precision", "recall"}
    assert "gold" not in json.dumps([r["request"] for r in SEARCH.exchanges()]).lower()
