"""Answer and state keys (StepResult.answer_key, state_key, and Reset's state_key): stated,
well-formed, reproducible;
failure kinds (StepResult.failure_kind): short words, none for an invalid action.

A server that states facts.answer_keys names the answer each step gives by a
key, and one that states facts.state_keys names the state each step leads
to: the same for the same state and action (on any replica: the kit's
replica checks compare keys with the rest of each step result), at most 128
printable ASCII characters, and empty for an invalid action. A server that
does not state a kind of key sends none of it.
"""

from __future__ import annotations

import pytest

from lats.conformance.helpers import garbage_actions

MAX_KEY_CHARS = 128
KINDS = {"answer_key": "answer_keys", "state_key": "state_keys"}   # field -> its fact


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


@pytest.mark.parametrize("field", KINDS)
def test_keys_only_from_servers_that_state_them(field, episodes, first_snapshot, describe,
                                                 probe_actions, limits):
    fact = KINDS[field]
    if getattr(describe.facts, fact):
        pytest.skip(f"the server states {field}s (facts.{fact})")
    results = _played(episodes, first_snapshot, probe_actions, limits)
    keyed = [action for action, step in results if getattr(step, field)]
    assert not keyed, (f"step results carry {field} (e.g. for {keyed[0]!r}) but Describe "
                       f"does not state facts.{fact}; state it, or send no keys")


@pytest.mark.parametrize("field", KINDS)
def test_keys_are_short_printable_ascii(field, episodes, first_snapshot, probe_actions, limits):
    results = _played(episodes, first_snapshot, probe_actions, limits)
    for action, step in results:
        key = getattr(step, field)
        assert len(key) <= MAX_KEY_CHARS, (
            f"{field} for {action!r} is {len(key)} characters; at most {MAX_KEY_CHARS} "
            "(send a digest of a longer identity)")
        assert key.isascii() and key.isprintable(), (
            f"{field} for {action!r} is not printable ASCII: {key[:40]!r}")


@pytest.mark.parametrize("field", KINDS)
def test_invalid_actions_give_no_key(field, episodes, first_snapshot):
    step = episodes.step_one(first_snapshot, garbage_actions(1, seed=7)[0])
    if not step.invalid_action:
        pytest.skip("the server took the garbage action as valid")
    assert getattr(step, field) == "", (
        f"an invalid action gives no answer and leads nowhere new: {field} must be empty")


@pytest.mark.parametrize("field", KINDS)
def test_keys_are_the_same_for_the_same_state_and_action(field, episodes, describe, task_id,
                                                         probe_actions, limits):
    if not getattr(describe.facts, KINDS[field]):
        pytest.skip(f"the server states no {field}s")
    first = _played(episodes, episodes.reset(task_id).snapshot, probe_actions, limits)
    again = _played(episodes, episodes.reset(task_id).snapshot, probe_actions, limits)
    assert [(a, getattr(s, field)) for a, s in again] == [(a, getattr(s, field))
                                                          for a, s in first], (
        f"the same state and action gave different {field}s; a key must not depend on "
        "time, randomness or the process")


MAX_FAILURE_KIND_CHARS = 32


def test_failure_kinds_are_short_words_and_never_for_an_invalid_action(
        episodes, first_snapshot, probe_actions, limits):
    """StepResult.failure_kind: a short lowercase word a pack's
    search_hints.unrefined_failures can name, "" for an invalid action."""
    for action, step in _played(episodes, first_snapshot, probe_actions, limits):
        kind = step.failure_kind
        assert len(kind) <= MAX_FAILURE_KIND_CHARS and kind == kind.strip().lower() \
            and kind.isascii() and kind.isprintable(), (
                f"failure_kind for {action!r} is {kind[:40]!r}: send a short lowercase word "
                f"(at most {MAX_FAILURE_KIND_CHARS} characters) or \"\"")
    step = episodes.step_one(first_snapshot, garbage_actions(1, seed=7)[0])
    if step.invalid_action:
        assert step.failure_kind == "", "an invalid action shows no failure kind: send \"\""


def test_the_first_state_key_is_well_formed_and_reproducible(episodes, describe, task_id):
    """ResetResponse.state_key names the first state as step results name theirs."""
    first, again = episodes.reset(task_id), episodes.reset(task_id)
    if not describe.facts.state_keys:
        assert first.state_key == "", (
            "Reset carries a state_key but Describe does not state facts.state_keys; "
            "state it, or send no keys")
        return
    key = first.state_key
    assert len(key) <= MAX_KEY_CHARS and key.isascii() and key.isprintable(), (
        f"Reset's state_key must be at most {MAX_KEY_CHARS} printable ASCII characters, "
        f"got {key[:40]!r}")
    assert again.state_key == key, (
        "two Resets of one task gave different state_keys; a key must not depend on time, "
        "randomness or the process")
