"""The calls a run keeps for training data (planner.call_log.CallLog)."""

from __future__ import annotations

from planner.model_client import SamplingParams
from planner.call_log import CallLog

MESSAGES = (("system", "Play."), ("user", "Task: 4 5 6 10\nStep 1:"))


def test_only_act_calls_are_kept_with_their_node_and_cleaned_actions():
    log = CallLog(action_prefix_pattern=r"^(?:Step \d+:\s*)")
    log.record(MESSAGES, SamplingParams(n=2, temperature=0.7, seed=9, purpose="act", key="0.1"),
               ["Step 2: 4 + 5 = 9", " 6 * 5 = 30"], "scripted:x")
    log.record(MESSAGES, SamplingParams(purpose="value", key="0.1.0"), ["score is 7"], "x")
    log.record(MESSAGES, SamplingParams(purpose="act", key="0.1@3"), ["10 - 4 = 6"], "x")
    calls = log.pending()
    assert [(c.index, c.node_id, c.key) for c in calls] == [(0, "0.1", "0.1"), (1, "0.1", "0.1@3")]
    first = calls[0]
    assert list(first.completions) == ["Step 2: 4 + 5 = 9", " 6 * 5 = 30"]
    assert list(first.actions) == ["4 + 5 = 9", "6 * 5 = 30"]
    assert [(m.role, m.content) for m in first.prompt] == list(MESSAGES)
    assert (first.temperature, first.seed, first.model) == (0.7, 9, "scripted:x")


def test_stored_calls_are_let_go_and_later_ones_keep_counting():
    log = CallLog()
    for key in ("0", "0.0"):
        log.record(MESSAGES, SamplingParams(purpose="act", key=key), ["a"], "x")
    pending = log.pending()
    log.record(MESSAGES, SamplingParams(purpose="act", key="0.1"), ["b"], "x")  # during a write
    log.stored(len(pending))
    assert [c.index for c in log.pending()] == [2] and log.count == 3
    log.stored(1)
    assert log.pending() == []
