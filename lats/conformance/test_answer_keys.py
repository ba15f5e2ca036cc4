"""Answer keys (StepResult.answer_key): stated, well-formed, reproducible.

A server that states facts.answer_keys names the answer each step gives by a
key: the same for the same state and action (on any replica: the kit's
replica checks compare keys with the rest of each step result), at most 128
printable ASCII characters, and empty for an invalid action. A server that
does not state it sends no keys.
"""

from __future__ import annotations

import pytest

from lats.conformance.helpers import garbage_actions

MAX_KEY_CHARS = 128


def _played(episodes, first_snapshot, probe_actions, limits):
    """(action, step result) for each probe action from the task's start, and then
    the whole probe script played on from one state to the episode's end."""
    results = [(action, episodes.step_one(first_snapshot, action)) for action in probe_actions]
    snapshot = first_snapshot
    for step in range(limits.max_steps):
        action = probe_actions[step % len(probe_actions)]
        result = episodes.step_one(snapshot, action)
        results.append((action, result))
        if result.terminated or result.truncated:
            break
        snapshot = result.snapshot
    return results


def test_keys_only_from_servers_that_state_them(episodes, first_snapshot, describe,
                                                 probe_actions, limits):
    if describe.facts.answer_keys:
        pytest.skip("the server states answer keys (facts.answer_keys)")
    results = _played(episodes, first_snapshot, probe_actions, limits)
    keyed = [action for action, step in results if step.answer_key]
    assert not keyed, (f"step results carry answer_key (e.g. for {keyed[0]!r}) but Describe "
                       "does not state facts.answer_keys; state it, or send no keys")


def test_keys_are_short_printable_ascii(episodes, first_snapshot, probe_actions, limits):
    results = _played(episodes, first_snapshot, probe_actions, limits)
    for action, step in results:
        key = step.answer_key
        assert len(key) <= MAX_KEY_CHARS, (
            f"answer_key for {action!r} is {len(key)} characters; at most {MAX_KEY_CHARS} "
            "(send a digest of a longer identity)")
        assert key.isascii() and key.isprintable(), (
            f"answer_key for {action!r} is not printable ASCII: {key[:40]!r}")


def test_invalid_actions_give_no_answer(episodes, first_snapshot):
    step = episodes.step_one(first_snapshot, garbage_actions(1, seed=7)[0])
    if not step.invalid_action:
        pytest.skip("the server took the garbage action as valid")
    assert step.answer_key == "", "an invalid action gives no answer: answer_key must be empty"


def test_keys_are_the_same_for_the_same_state_and_action(episodes, describe, task_id,
                                                         probe_actions, limits):
    if not describe.facts.answer_keys:
        pytest.skip("the server states no answer keys")
    first = _played(episodes, episodes.reset(task_id).snapshot, probe_actions, limits)
    again = _played(episodes, episodes.reset(task_id).snapshot, probe_actions, limits)
    assert [(a, s.answer_key) for a, s in again] == [(a, s.answer_key) for a, s in first], (
        "the same state and action gave different answer keys; a key must not depend on "
        "time, randomness or the process")
