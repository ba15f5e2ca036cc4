"""The stateless pair: Start and Transition agree with sessions, on any replica.

Transition must be exactly Restore + Step + Snapshot for the same state and
action: the same step result, and a new state that plays on exactly as the
session would. With --env-addr-2 (a second replica sharing the signing key)
the kit also checks that the two processes answer identically.
"""

from __future__ import annotations

import itertools

import grpc
import pytest
from lats_pb import environment_pb2

from lats.conformance.helpers import Outcome, damaged_blobs, expect_status, garbage_actions


def _start(stub, task_id, timeout) -> environment_pb2.StartResponse:
    return stub.Start(environment_pb2.StartRequest(task_id=task_id), timeout=timeout)


def _transition(stub, timeout, blob, actions, replay=None) -> list[environment_pb2.TransitionResult]:
    request = environment_pb2.TransitionRequest(actions=list(actions))
    if replay is not None:
        request.replay.CopyFrom(replay)
    else:
        request.blob = blob
    return list(stub.Transition(request, timeout=timeout).results)


def _play_stateless(stub, timeout, blob, script, replay=None) -> list[Outcome]:
    """Plays `script` one Transition at a time from a state, like Sessions.play."""
    outcomes = []
    for action in script:
        try:
            result, = _transition(stub, timeout, blob, [action], replay)
        except grpc.RpcError as error:
            outcomes.append(Outcome.failed(error))
            break
        outcome = Outcome.of(result.step)
        outcomes.append(outcome)
        if outcome.ended:
            break
        if replay is not None:
            replay = _extended(replay, action)
        blob = result.blob
    return outcomes


def _extended(replay, action) -> environment_pb2.Replay:
    longer = environment_pb2.Replay()
    longer.CopyFrom(replay)
    longer.actions.append(action)
    return longer


def _script(probe_actions, length, rotate=0):
    cycle = itertools.cycle(probe_actions[rotate:] + probe_actions[:rotate])
    return list(itertools.islice(cycle, length))


def test_start_matches_reset(stub, sessions, task_id, describe, rpc_timeout):
    started = _start(stub, task_id, rpc_timeout)
    reset = sessions.reset(task_id)
    assert started.observation == reset.observation, "Start and Reset disagree on the task"
    assert started.task_id == reset.task_id
    if describe.capabilities.snapshot:
        assert started.blob, "Start must return the state's blob when snapshots are supported"
    else:
        assert not started.blob, "a server without snapshots returns no blob"


def test_limits_publish_the_batch_size(limits):
    assert limits.max_batch_actions >= 1, "Describe.limits.max_batch_actions must be set"


@pytest.mark.usefixtures("needs_snapshot")
def test_transition_equals_restore_step_snapshot(stub, sessions, task_id, probe_actions,
                                                  limits, rpc_timeout):
    blob = _start(stub, task_id, rpc_timeout).blob
    script = _script(probe_actions, limits.max_steps, rotate=1)
    for action in probe_actions:
        result, = _transition(stub, rpc_timeout, blob, [action])
        session = sessions.restore(blob).session_id
        stepped = sessions.step(session, action)
        assert Outcome.of(result.step) == Outcome.of(stepped), (
            f"Transition and Restore+Step disagree on {action!r}")
        if Outcome.of(stepped).ended:
            continue
        # The new state plays on exactly as the session does.
        reference = sessions.play(sessions.restore(sessions.snapshot(session)).session_id, script)
        assert _play_stateless(stub, rpc_timeout, result.blob, script) == reference, (
            f"the state after {action!r} behaves differently from the session's")


@pytest.mark.usefixtures("needs_snapshot")
def test_batch_results_keep_request_order(stub, task_id, probe_actions, limits, rpc_timeout):
    blob = _start(stub, task_id, rpc_timeout).blob
    batch = probe_actions[: max(1, min(len(probe_actions), limits.max_batch_actions))]
    together = _transition(stub, rpc_timeout, blob, batch)
    assert len(together) == len(batch), "one result per action"
    alone = [_transition(stub, rpc_timeout, blob, [action])[0] for action in batch]
    assert [Outcome.of(r.step) for r in together] == [Outcome.of(r.step) for r in alone], (
        "a batch answered differently from (or in another order than) single calls")


@pytest.mark.usefixtures("needs_snapshot")
def test_batch_limits_are_invalid_argument(stub, task_id, probe_actions, limits, rpc_timeout):
    blob = _start(stub, task_id, rpc_timeout).blob
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, _transition, stub, rpc_timeout, blob, [])
    too_many = list(itertools.islice(itertools.cycle(probe_actions), limits.max_batch_actions + 1))
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, _transition, stub, rpc_timeout, blob, too_many)
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, _transition, stub, rpc_timeout, blob,
                  [probe_actions[0], "   "])


@pytest.mark.usefixtures("needs_snapshot")
def test_damaged_and_foreign_blobs_are_invalid_argument(stub, task_id, probe_actions,
                                                        rpc_timeout):
    blob = _start(stub, task_id, rpc_timeout).blob
    for name, damaged in damaged_blobs(blob).items():
        error = expect_status(grpc.StatusCode.INVALID_ARGUMENT, _transition, stub, rpc_timeout,
                              damaged, [probe_actions[0]], what=f"Transition on {name}")
        assert error.details(), name


@pytest.mark.usefixtures("needs_snapshot")
def test_transition_after_the_end_is_failed_precondition(stub, task_id, limits, rpc_timeout):
    if limits.max_steps > 500:
        pytest.skip(f"max_steps={limits.max_steps} is too many steps to play out")
    blob = _start(stub, task_id, rpc_timeout).blob
    for action in garbage_actions(limits.max_steps + 1):
        result, = _transition(stub, rpc_timeout, blob, [action])
        blob = result.blob
        if result.step.terminated or result.step.truncated:
            break
    else:
        pytest.fail(f"the episode did not end after max_steps={limits.max_steps} steps")
    expect_status(grpc.StatusCode.FAILED_PRECONDITION, _transition, stub, rpc_timeout, blob,
                  ["~more~"])


def test_replay_without_snapshots_matches_sessions(stub, sessions, task_id, describe,
                                                   probe_actions, limits, rpc_timeout):
    if describe.capabilities.snapshot:
        pytest.skip("the server has snapshots; replays are for servers without them")
    replay = environment_pb2.Replay(start=environment_pb2.StartRequest(task_id=task_id))
    script = _script(probe_actions, limits.max_steps)
    reference = sessions.play(sessions.reset(task_id).session_id, script)
    assert _play_stateless(stub, rpc_timeout, b"", script, replay) == reference


@pytest.mark.usefixtures("needs_snapshot")
def test_a_second_replica_answers_identically(stub, second_stub, task_id, probe_actions,
                                              limits, rpc_timeout):
    blob = _start(stub, task_id, rpc_timeout).blob
    script = _script(probe_actions, limits.max_steps, rotate=1)
    here = _play_stateless(stub, rpc_timeout, blob, script)
    there = _play_stateless(second_stub, rpc_timeout, blob, script)
    assert there == here, "two replicas sharing the key answered differently for one blob"
    result, = _transition(second_stub, rpc_timeout, blob, [probe_actions[0]])
    if not (result.step.terminated or result.step.truncated):
        _transition(stub, rpc_timeout, result.blob, [probe_actions[0]])  # and back again
