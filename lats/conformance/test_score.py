"""Score on a live session and on a snapshot blob."""

from __future__ import annotations

import grpc
import pytest
from lats_pb import environment_pb2

from lats.conformance.helpers import damaged_blobs, expect_status

pytestmark = pytest.mark.usefixtures("needs_score")


def _score(stub, timeout, **target) -> environment_pb2.ScoreResponse:
    return stub.Score(environment_pb2.ScoreRequest(**target), timeout=timeout)


def _fields(score: environment_pb2.ScoreResponse):
    return score.score, score.success, dict(score.metrics)


def test_score_a_session_and_its_blob_alike(sessions, stub, rpc_timeout, task_id,
                                            probe_actions, describe):
    session = sessions.reset(task_id).session_id
    sessions.play(session, probe_actions[:2])
    on_session = _score(stub, rpc_timeout, session_id=session)
    if not describe.capabilities.snapshot:
        return
    on_blob = _score(stub, rpc_timeout, blob=sessions.snapshot(session))
    assert _fields(on_blob) == _fields(on_session), "Score differs between a session and its blob"


def test_score_at_reset(sessions, stub, rpc_timeout, task_id):
    session = sessions.reset(task_id).session_id
    score = _score(stub, rpc_timeout, session_id=session)
    assert not score.success, "an episode that has not acted yet cannot have succeeded"


def test_score_of_unknown_session_is_not_found(stub, rpc_timeout):
    expect_status(grpc.StatusCode.NOT_FOUND, stub.Score,
                  environment_pb2.ScoreRequest(session_id="conformance-no-such-session"),
                  timeout=rpc_timeout)


def test_score_without_target_is_invalid_argument(stub, rpc_timeout):
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, stub.Score, environment_pb2.ScoreRequest(),
                  timeout=rpc_timeout)


def test_score_of_a_damaged_blob_is_invalid_argument(sessions, stub, rpc_timeout, task_id,
                                                    describe):
    if not describe.capabilities.snapshot:
        pytest.skip("the server does not support snapshots")
    blob = sessions.snapshot(sessions.reset(task_id).session_id)
    for name, damaged in damaged_blobs(blob).items():
        expect_status(grpc.StatusCode.INVALID_ARGUMENT, stub.Score,
                      environment_pb2.ScoreRequest(blob=damaged), timeout=rpc_timeout,
                      what=f"Score of {name}")
