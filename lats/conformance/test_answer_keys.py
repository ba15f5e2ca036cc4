"""Answer keys (StepResponse.answer_key): stated, well-formed, reproducible.

A server that states facts.answer_keys names the answer each step gives by a
key: the same for the same state and action (on any replica: the kit's
replica checks compare keys with the rest of each step result), at most 128
printable ASCII characters, and empty for an invalid action. A server that
does not state it sends no keys.
"""

from __future__ import annotations

import pytest
from lats_pb import environment_pb2

from lats.conformance.helpers import garbage_actions

MAX_KEY_CHARS = 128


def _played(stub, task_id, probe_actions, limits, rpc_timeout):
    """(action, step result) for each probe action from the task's start, and then
    the whole probe script played on from one state to the episode's end."""
    started = stub.Start(environment_pb2.StartRequest(task_id=task_id), timeout=rpc_timeout)
    if not started.blob:
        pytest.skip("the server has no snapshots; replica and replay checks cover its keys")
    results = []
    for action in probe_actions:
        reply = stub.Transition(environment_pb2.TransitionRequest(blob=started.blob,
                                                                  actions=[action]),
                                timeout=rpc_timeout)
        results.append((action, reply.results[0].step))
    blob = started.blob
    for step in range(limits.max_steps):
        action = probe_actions[step % len(probe_actions)]
        reply = stub.Transition(environment_pb2.TransitionRequest(blob=blob, actions=[action]),
                                timeout=rpc_timeout)
        result = reply.results[0]
        results.append((action, result.step))
        if result.step.terminated or result.step.truncated:
            break
        blob = result.blob
    return started.blob, results


def test_keys_only_from_servers_that_state_them(stub, describe, task_id, probe_actions,
                                                 limits, rpc_timeout):
    if describe.facts.answer_keys:
        pytest.skip("the server states answer keys (facts.answer_keys)")
    _, results = _played(stub, task_id, probe_actions, limits, rpc_timeout)
    keyed = [action for action, step in results if step.answer_key]
    assert not keyed, (f"step results carry answer_key (e.g. for {keyed[0]!r}) but Describe "
                       "does not state facts.answer_keys; state it, or send no keys")


def test_keys_are_short_printable_ascii(stub, describe, task_id, probe_actions, limits,
                                        rpc_timeout):
    _, results = _played(stub, task_id, probe_actions, limits, rpc_timeout)
    for action, step in results:
        key = step.answer_key
        assert len(key) <= MAX_KEY_CHARS, (
            f"answer_key for {action!r} is {len(key)} characters; at most {MAX_KEY_CHARS} "
            "(send a digest of a longer identity)")
        assert key.isascii() and key.isprintable(), (
            f"answer_key for {action!r} is not printable ASCII: {key[:40]!r}")


def test_invalid_actions_give_no_answer(stub, task_id, rpc_timeout):
    started = stub.Start(environment_pb2.StartRequest(task_id=task_id), timeout=rpc_timeout)
    request = environment_pb2.TransitionRequest(actions=garbage_actions(1, seed=7))
    if started.blob:
        request.blob = started.blob
    else:
        request.replay.start.task_id = task_id
    step = stub.Transition(request, timeout=rpc_timeout).results[0].step
    if not step.invalid_action:
        pytest.skip("the server took the garbage action as valid")
    assert step.answer_key == "", "an invalid action gives no answer: answer_key must be empty"


def test_keys_are_the_same_for_the_same_state_and_action(stub, describe, task_id,
                                                         probe_actions, limits, rpc_timeout):
    if not describe.facts.answer_keys:
        pytest.skip("the server states no answer keys")
    blob, first = _played(stub, task_id, probe_actions, limits, rpc_timeout)
    _, again = _played(stub, task_id, probe_actions, limits, rpc_timeout)
    assert [(a, s.answer_key) for a, s in again] == [(a, s.answer_key) for a, s in first], (
        "the same state and action gave different answer keys; a key must not depend on "
        "time, randomness or the process")
