"""Snapshots: every one is a point you can revert to, exactly, on any replica.

A snapshot is opaque: the kit passes it back unchanged, and checks behaviour
only. Continuing a snapshot reproduces what followed it; branches from one
snapshot are independent; an ended episode stays ended; a server makes one
kind of snapshot (blobs or replays) and refuses the other kind; a damaged blob
is INVALID_ARGUMENT, named by its damage. With --env-addr-2 (a second replica
sharing the signing key) both processes answer identically for one snapshot.
"""

from __future__ import annotations

import grpc
import pytest
from lats_pb import environment_pb2

from lats.conformance.helpers import damaged_blobs, expect_status, script


def _after_first_step(episodes, first_snapshot, probe_actions):
    return episodes.step_one(first_snapshot, probe_actions[0]).snapshot


def test_every_snapshot_is_of_the_servers_one_kind(episodes, first_snapshot, snapshot_kind,
                                                   probe_actions, limits):
    _, snapshots = episodes.play(first_snapshot, script(probe_actions, limits.max_steps))
    kinds = {snapshot.WhichOneof("kind") for snapshot in snapshots}
    assert kinds <= {snapshot_kind}, (
        f"Reset gave a {snapshot_kind} snapshot but Step gave {sorted(kinds)}; a server makes "
        "one kind of snapshot")


def test_a_snapshot_reproduces_later_steps_exactly(episodes, first_snapshot, probe_actions,
                                                   limits):
    played = script(probe_actions, limits.max_steps, rotate=1)
    snapshot = _after_first_step(episodes, first_snapshot, probe_actions)
    original = episodes.outcomes(snapshot, played)
    assert episodes.outcomes(snapshot, played) == original, (
        "continuing the same snapshot twice gave different steps")
    # Every intermediate snapshot plays on exactly as the episode did from there.
    outcomes, snapshots = episodes.play(snapshot, played)
    for index, middle in enumerate(snapshots[:-1]):
        assert episodes.outcomes(middle, played[index + 1:]) == outcomes[index + 1:], (
            f"the snapshot after step {index + 2} plays on differently from the episode")


def test_branches_are_independent(episodes, first_snapshot, probe_actions, limits):
    snapshot = _after_first_step(episodes, first_snapshot, probe_actions)
    script_a = script(probe_actions, limits.max_steps, rotate=1)
    script_b = script(probe_actions, limits.max_steps, rotate=2)
    reference = episodes.outcomes(snapshot, script_b)
    episodes.outcomes(snapshot, script_a)
    assert episodes.outcomes(snapshot, script_b) == reference, (
        "playing one branch of a snapshot changed another")


def test_an_ended_episode_stays_ended(episodes, task_id, limits):
    ended = episodes.ended_snapshot(task_id, limits.max_steps)
    for _ in range(2):
        expect_status(grpc.StatusCode.FAILED_PRECONDITION, episodes.step_one, ended, "~more~",
                      what="a Step on the snapshot of an ended episode")


def test_the_other_kind_of_snapshot_is_invalid_argument(episodes, snapshot_kind, task_id,
                                                        probe_actions):
    if snapshot_kind == "blob":
        other = environment_pb2.Snapshot(replay=environment_pb2.Replay(
            reset=environment_pb2.ResetRequest(task_id=task_id)))
    else:
        other = environment_pb2.Snapshot(blob=b"LATS\x01" + b"\x00" * 40)
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, episodes.step_one, other, probe_actions[0],
                  what=f"a {other.WhichOneof('kind')} snapshot sent to a server that makes "
                       f"{snapshot_kind}s")


@pytest.mark.usefixtures("needs_blobs")
def test_damaged_blobs_are_invalid_argument(episodes, first_snapshot, probe_actions):
    blob = _after_first_step(episodes, first_snapshot, probe_actions).blob
    for name, damaged in damaged_blobs(blob).items():
        snapshot = environment_pb2.Snapshot(blob=damaged)
        error = expect_status(grpc.StatusCode.INVALID_ARGUMENT, episodes.step_one, snapshot,
                              probe_actions[0], what=f"a Step on {name}")
        assert error.details(), name


def test_a_second_replica_answers_identically(episodes, second_episodes, first_snapshot,
                                              probe_actions, limits):
    played = script(probe_actions, limits.max_steps, rotate=1)
    here = episodes.outcomes(first_snapshot, played)
    there = second_episodes.outcomes(first_snapshot, played)
    assert there == here, ("two replicas answered differently for one snapshot (do they share "
                           "the snapshot key, and run the same version?)")
    # A snapshot made by the second replica continues on the first.
    result = second_episodes.step_one(first_snapshot, probe_actions[0])
    if not (result.terminated or result.truncated):
        back = episodes.step_one(result.snapshot, probe_actions[0])
        assert back.steps == 2, "the first replica did not continue the second one's snapshot"


def test_replicas_start_tasks_alike(episodes, second_episodes, task_id, probe_actions, limits):
    here = episodes.reset(task_id)
    there = second_episodes.reset(task_id)
    assert (there.observation, there.task_id) == (here.observation, here.task_id), (
        "two replicas started the same task differently")
    played = script(probe_actions, limits.max_steps)
    assert second_episodes.outcomes(here.snapshot, played) == episodes.outcomes(
        there.snapshot, played), "each replica's first snapshot plays on differently on the other"
