"""The conformance kit passes against a real WebShop server process."""

from __future__ import annotations

import pytest

from tests import kit

KIT_TASK = "fixed_0"


@pytest.fixture(scope="module")
def webshop_replicas(store):
    # `store` builds the catalog into the shared cache first, so the servers open it at once.
    with kit.two_replicas("env", ["env", "webshop"], timeout=60) as replicas:
        yield replicas


@pytest.mark.timeout(180)
def test_webshop_server_passes_the_whole_kit(webshop_replicas, tmp_path):
    results = kit.run_kit(webshop_replicas, tmp_path / "kit.xml", KIT_TASK)
    assert kit.skipped(results) == sorted([kit.STATES_ANSWER_KEYS, kit.STATES_STATE_KEYS, *kit.WITHOUT_INLINE_TASKS_ONLY,
                                          *kit.REPLAY_ONLY])
    for must_run in ("test_a_snapshot_reproduces_later_steps_exactly",
                     "test_branches_are_independent",
                     "test_invalid_action_leaves_the_state_unchanged",
                     "test_grammar_examples_play_in_order_without_error"):
        assert results[must_run] == "passed", must_run
