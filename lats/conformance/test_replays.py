"""Replay snapshots (servers that cannot serialise their state): built and checked right.

A replay is the episode's Reset request and every action taken since, invalid
ones included, in order; the server builds it and re-plays it on each call.
Clients pass it back unchanged, but the server must still refuse one that
cannot be a snapshot it made: an action past the episode's end, an empty
action, a task it does not know. (Everything else, batches, limits, replicas
and Score, the other modules check for both kinds of snapshot.)
"""

from __future__ import annotations

import grpc
import pytest
from lats_pb import environment_pb2

from lats.conformance.helpers import expect_status, garbage_actions


@pytest.fixture
def needs_replays(snapshot_kind) -> None:
    if snapshot_kind != "replay":
        pytest.skip("the server's snapshots are blobs; replay checks do not apply")


pytestmark = pytest.mark.usefixtures("needs_replays")


def _replay(reset: environment_pb2.ResetRequest, actions) -> environment_pb2.Snapshot:
    return environment_pb2.Snapshot(replay=environment_pb2.Replay(reset=reset,
                                                                  actions=list(actions)))


def test_a_replay_names_the_reset_and_every_action_since(episodes, task_id, probe_actions):
    first = episodes.reset(task_id).snapshot
    assert first.replay.reset.task_id == task_id and not first.replay.actions, (
        "Reset's replay must hold the Reset request and no action")
    script = [probe_actions[0], garbage_actions(1)[0], *probe_actions[1:2]]
    _, snapshots = episodes.play(first, script)
    for taken, snapshot in enumerate(snapshots, start=1):
        assert list(snapshot.replay.actions) == script[:taken], (
            "a replay must hold every action since the Reset, invalid ones included, in order")
        assert snapshot.replay.reset == first.replay.reset, "a replay must keep its Reset"


def test_a_replay_past_its_episodes_end_is_invalid_argument(episodes, task_id, limits):
    ended = episodes.ended_snapshot(task_id, limits.max_steps)
    longer = _replay(ended.replay.reset, [*ended.replay.actions, "~more~"])
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, episodes.step_one, longer, "~more~",
                  what="a replay with an action after its episode ended")


def test_a_replay_with_an_empty_action_is_invalid_argument(episodes, first_snapshot,
                                                           probe_actions):
    damaged = _replay(first_snapshot.replay.reset, ["   "])
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, episodes.step_one, damaged,
                  probe_actions[0], what="a replay holding an empty action")


def test_a_replay_of_an_unknown_task_is_not_found(episodes, probe_actions):
    unknown = _replay(environment_pb2.ResetRequest(task_id="conformance/no-such-task-7f3a9c"), [])
    expect_status(grpc.StatusCode.NOT_FOUND, episodes.step_one, unknown, probe_actions[0],
                  what="a replay of an unknown task")
