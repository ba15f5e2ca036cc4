"""Step semantics: observations for bad actions, step counting, request limits."""

from __future__ import annotations

import grpc
import pytest
from lats_pb import environment_pb2

from lats.conformance.helpers import (
    PROTOCOL_MAX_MESSAGE_BYTES,
    Outcome,
    expect_status,
    garbage_actions,
)


def _in_range(describe, reward: float) -> bool:
    return describe.reward_range.min <= reward <= describe.reward_range.max


def test_garbage_actions_get_an_observation_not_an_error(sessions, task_id, describe):
    for action in garbage_actions(4):
        session = sessions.reset(task_id).session_id
        response = sessions.step(session, action)
        assert response.observation.strip(), f"no observation for garbage action {action!r}"
        assert response.steps == 1, f"the first step reports steps={response.steps}"
        assert _in_range(describe, response.reward), f"reward {response.reward} out of range"
        if response.invalid_action:
            assert not response.terminated, "an invalid action must not end the episode"


def test_grammar_examples_step_without_error(sessions, task_id, describe):
    session = sessions.reset(task_id).session_id
    for outcome in sessions.play(session, describe.action_grammar.examples):
        assert not outcome.error, f"Step failed with {outcome.error}"
        assert outcome.observation.strip(), "a step gave an empty observation"
        assert _in_range(describe, outcome.reward), f"reward {outcome.reward} out of range"


def test_every_step_counts_and_the_limit_truncates(sessions, task_id, limits, describe):
    if limits.max_steps > 500:
        pytest.skip(f"max_steps={limits.max_steps} is too many steps to play out")
    session = sessions.reset(task_id).session_id
    actions = garbage_actions(limits.max_steps + 1)
    outcomes = sessions.play(session, actions)
    for number, outcome in enumerate(outcomes, start=1):
        assert not outcome.error, f"step {number} failed with {outcome.error}"
        assert outcome.steps == number, f"step {number} reported steps={outcome.steps}"
        assert not (outcome.terminated and outcome.truncated), "terminated and truncated both set"
        if outcome.truncated:
            assert number == limits.max_steps, f"truncated at step {number}, not max_steps"
    last = outcomes[-1]
    assert last.terminated or last.truncated, (
        f"the episode did not end after max_steps={limits.max_steps} steps"
    )
    if not last.terminated:
        assert last.steps == limits.max_steps and last.truncated


def test_step_after_the_end_is_failed_precondition(sessions, task_id, limits):
    if limits.max_steps > 500:
        pytest.skip(f"max_steps={limits.max_steps} is too many steps to play out")
    session = sessions.reset(task_id).session_id
    outcomes = sessions.play(session, garbage_actions(limits.max_steps + 1))
    assert outcomes[-1].ended and not outcomes[-1].error
    for action in garbage_actions(2, seed=7):
        expect_status(grpc.StatusCode.FAILED_PRECONDITION, sessions.step, session, action)


def test_invalid_action_leaves_the_state_unchanged(
    sessions, task_id, probe_actions, limits, needs_snapshot
):
    if limits.max_steps < 3:
        pytest.skip("max_steps is too small to step after an invalid action")
    session = sessions.reset(task_id).session_id
    before = sessions.snapshot(session)
    response = sessions.step(session, garbage_actions(1)[0])
    if not response.invalid_action:
        pytest.skip("this environment treats the garbage action as a valid action")
    after = sessions.snapshot(session)
    probe = probe_actions[0]
    from_before = Outcome.of(sessions.step(sessions.restore(before).session_id, probe))
    from_after = Outcome.of(sessions.step(sessions.restore(after).session_id, probe))
    assert from_before._replace(steps=0, truncated=False) == from_after._replace(
        steps=0, truncated=False
    ), "an invalid action changed the state"


def test_empty_action_is_invalid_argument(sessions, task_id):
    session = sessions.reset(task_id).session_id
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, sessions.step, session, "")


def test_oversized_action_is_invalid_argument(sessions, task_id, limits):
    session = sessions.reset(task_id).session_id
    limit = limits.max_action_bytes
    if limit < PROTOCOL_MAX_MESSAGE_BYTES - 1024:
        at_limit = sessions.step(session, ("~" * limit))
        assert at_limit.steps == 1, "an action of exactly max_action_bytes must be accepted"
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, sessions.step, session, "~" * (limit + 1))


def test_oversized_request_is_resource_exhausted(sessions, task_id):
    session = sessions.reset(task_id).session_id
    huge = "~" * (PROTOCOL_MAX_MESSAGE_BYTES + 1024)
    expect_status(grpc.StatusCode.RESOURCE_EXHAUSTED, sessions.step, session, huge)


def test_unknown_session_is_not_found(stub, rpc_timeout):
    expect_status(grpc.StatusCode.NOT_FOUND, stub.Step,
                  environment_pb2.StepRequest(session_id="conformance-no-such-session",
                                              action="anything"),
                  timeout=rpc_timeout)
