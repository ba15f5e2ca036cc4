"""Snapshot / Restore: exact reproduction, fork independence, blob integrity."""

from __future__ import annotations

import itertools

import grpc
import pytest
from lats_pb import environment_pb2

from lats.conformance.helpers import damaged_blobs, expect_status

pytestmark = pytest.mark.usefixtures("needs_snapshot")


def _script(probe_actions, length, rotate=0):
    """`length` probe actions, starting `rotate` places into the cycle."""
    cycle = itertools.cycle(probe_actions[rotate:] + probe_actions[:rotate])
    return list(itertools.islice(cycle, length))


def _blob_after_first_step(sessions, task_id, probe_actions):
    session = sessions.reset(task_id).session_id
    sessions.step(session, probe_actions[0])
    return session, sessions.snapshot(session)


def test_restore_reproduces_later_steps_exactly(sessions, task_id, probe_actions, limits):
    session, blob = _blob_after_first_step(sessions, task_id, probe_actions)
    script = _script(probe_actions, limits.max_steps, rotate=1)
    first = sessions.restore(blob)
    second = sessions.restore(blob)
    assert first.session_id not in (session, second.session_id), "Restore must open a new session"
    assert first.observation == second.observation, "two restores of one blob differ"
    original = sessions.play(session, script)
    assert sessions.play(first.session_id, script) == original
    assert sessions.play(second.session_id, script) == original


def test_forks_are_independent(sessions, task_id, probe_actions, limits):
    session, blob = _blob_after_first_step(sessions, task_id, probe_actions)
    script_a = _script(probe_actions, limits.max_steps, rotate=1)
    script_b = _script(probe_actions, limits.max_steps, rotate=2)
    reference = sessions.play(sessions.restore(blob).session_id, script_b)

    fork_a = sessions.restore(blob).session_id
    fork_b = sessions.restore(blob).session_id
    sessions.play(fork_a, script_a)
    assert sessions.play(fork_b, script_b) == reference, "stepping one fork changed another"
    assert sessions.play(session, script_b) == reference, "stepping a fork changed its source"


def test_restore_outlives_the_source_session(sessions, task_id, probe_actions):
    session, blob = _blob_after_first_step(sessions, task_id, probe_actions)
    sessions.close(session)
    restored = sessions.restore(blob)
    assert restored.observation.strip(), "Restore gave an empty observation"


def test_an_ended_episode_stays_ended_after_restore(sessions, task_id, limits):
    if limits.max_steps > 500:
        pytest.skip(f"max_steps={limits.max_steps} is too many steps to play out")
    session = sessions.reset(task_id).session_id
    outcomes = sessions.play(session, ["~ended?~"] * (limits.max_steps + 1))
    assert outcomes[-1].ended and not outcomes[-1].error
    restored = sessions.restore(sessions.snapshot(session)).session_id
    expect_status(grpc.StatusCode.FAILED_PRECONDITION, sessions.step, restored, "~more~")


def test_damaged_blobs_are_invalid_argument(sessions, task_id, probe_actions, stub, rpc_timeout):
    _, blob = _blob_after_first_step(sessions, task_id, probe_actions)
    for name, damaged in damaged_blobs(blob).items():
        error = expect_status(grpc.StatusCode.INVALID_ARGUMENT, stub.Restore,
                              environment_pb2.RestoreRequest(blob=damaged), timeout=rpc_timeout,
                              what=f"Restore of {name}")
        assert error.details(), name


def test_snapshot_of_unknown_session_is_not_found(stub, rpc_timeout):
    expect_status(grpc.StatusCode.NOT_FOUND, stub.Snapshot,
                  environment_pb2.SnapshotRequest(session_id="conformance-no-such-session"),
                  timeout=rpc_timeout)
