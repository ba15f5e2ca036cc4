"""Score grades the state a snapshot names, alike on every call and replica."""

from __future__ import annotations

import grpc
import pytest
from lats_pb import environment_pb2

from lats.conformance.helpers import damaged_blobs, expect_status, script

pytestmark = pytest.mark.usefixtures("needs_score")


def _fields(score: environment_pb2.ScoreResponse):
    return score.score, score.success, dict(score.metrics), score.details


def test_score_at_reset_is_no_success(episodes, first_snapshot):
    score = episodes.score(first_snapshot)
    assert not score.success, "an episode that has not acted yet cannot have succeeded"


def test_score_of_a_played_snapshot_is_reproducible(episodes, first_snapshot, probe_actions,
                                                    limits):
    _, snapshots = episodes.play(first_snapshot, script(probe_actions, min(3, limits.max_steps)))
    for snapshot in snapshots:
        assert _fields(episodes.score(snapshot)) == _fields(episodes.score(snapshot)), (
            "Score of one snapshot differs between two calls")


def test_a_second_replica_scores_alike(episodes, second_episodes, first_snapshot,
                                       probe_actions):
    snapshot = episodes.step_one(first_snapshot, probe_actions[0]).snapshot
    assert _fields(second_episodes.score(snapshot)) == _fields(episodes.score(snapshot)), (
        "two replicas scored one snapshot differently")


def test_score_without_a_snapshot_is_invalid_argument(stub, rpc_timeout):
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, stub.Score, environment_pb2.ScoreRequest(),
                  timeout=rpc_timeout, what="a Score naming no snapshot")


@pytest.mark.usefixtures("needs_blobs")
def test_score_of_a_damaged_blob_is_invalid_argument(episodes, stub, rpc_timeout,
                                                    first_snapshot):
    for name, damaged in damaged_blobs(first_snapshot.blob).items():
        expect_status(grpc.StatusCode.INVALID_ARGUMENT, stub.Score,
                      environment_pb2.ScoreRequest(snapshot=environment_pb2.Snapshot(
                          blob=damaged)), timeout=rpc_timeout, what=f"Score of {name}")
