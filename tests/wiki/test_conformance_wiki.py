"""The conformance kit passes against real hotpotqa and hotpotqa-cot server processes."""

from __future__ import annotations

import pytest

from tests import kit

KIT_TASK = "hotpotqa/0"   # the grammar examples play this question


@pytest.mark.timeout(180)
@pytest.mark.parametrize("environment", ["hotpotqa", "hotpotqa-cot"])
def test_the_server_passes_the_whole_kit(environment, tmp_path, index_path):
    with kit.two_replicas(
            environment, ["env", environment],
            timeout=60, env={"LATS_WIKI_INDEX": str(index_path),
                             "LATS_WIKI_CACHE_DIR": str(tmp_path / "cache")}) as replicas:
        results = kit.run_kit(replicas, tmp_path / "kit.xml", KIT_TASK, process_timeout=150)
    skipped = kit.skipped(results)
    expected_skips = ["test_inline_task_without_capability_is_failed_precondition",
                      kit.STATES_ANSWER_KEYS, kit.STATES_STATE_KEYS, *kit.REPLAY_ONLY]
    if environment == "hotpotqa-cot":   # every text is a thought there: nothing is invalid
        expected_skips += ["test_invalid_action_leaves_the_state_unchanged",
                           "test_invalid_actions_give_no_key[answer_key]",
                           "test_invalid_actions_give_no_key[state_key]"]
    assert skipped == sorted(expected_skips)
    for must_run in ("test_branches_are_independent",
                     "test_a_snapshot_reproduces_later_steps_exactly",
                     "test_grammar_examples_play_in_order_without_error"):
        assert results[must_run] == "passed", must_run
