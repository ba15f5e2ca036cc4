"""Start and Transition: stateless play on blobs or replays, batch rules, no sessions."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from lats_pb import environment_pb2 as pb

from tests.env.fakes import CounterDomain, NoSnapshotCounterDomain
from tests.env.helpers import serving, status_of

pytestmark = pytest.mark.timeout(30)
Code = grpc.StatusCode


async def transition(env, actions, blob=b"", replay=None) -> list[pb.TransitionResult]:
    request = pb.TransitionRequest(actions=actions)
    if replay is not None:
        request.replay.CopyFrom(replay)
    else:
        request.blob = blob
    return list((await env.stub.Transition(request)).results)


async def test_start_and_transitions_open_no_session():
    async with serving(CounterDomain()) as env:
        started = await env.stub.Start(pb.StartRequest(task_id="counter/3", seed=5))
        assert (started.observation, started.task_id) == ("count 0", "counter/3")
        assert started.info["seed"] == 5 and started.blob
        first, = await transition(env, ["inc"], started.blob)
        second, = await transition(env, ["inc"], first.blob)
        assert (second.step.observation, second.step.steps) == ("count 2", 2)
        assert len(env.server.servicer.sessions) == 0


async def test_a_batch_branches_from_one_state_in_order():
    async with serving(CounterDomain()) as env:
        started = await env.stub.Start(pb.StartRequest(task_id="counter/0"))
        one, = await transition(env, ["inc"], started.blob)
        results = await transition(env, ["inc", "bogus", "end"], one.blob)
        assert [r.step.observation for r in results] == [
            "count 2", "Invalid action: 'bogus' is not inc or end.", "ended"]
        assert [r.step.steps for r in results] == [2, 2, 2]
        assert [r.step.invalid_action for r in results] == [False, True, False]
        assert results[2].step.terminated and results[2].step.reward == 1.0
        # An invalid action keeps the state: the next step counts on from 1.
        after_invalid, = await transition(env, ["inc"], results[1].blob)
        assert (after_invalid.step.observation, after_invalid.step.steps) == ("count 2", 3)


async def test_batches_run_concurrently():
    async with serving(CounterDomain(delay=0.3)) as env:
        started = await env.stub.Start(pb.StartRequest(task_id="counter/0"))
        loop = asyncio.get_running_loop()
        began = loop.time()
        results = await transition(env, ["inc"] * 6, started.blob)
        assert len(results) == 6 and loop.time() - began < 1.2


async def test_batch_rules_and_ended_episodes():
    async with serving(CounterDomain(max_steps=5), max_batch_actions=3) as env:
        described = await env.stub.Describe(pb.DescribeRequest())
        assert described.limits.max_batch_actions == 3
        blob = (await env.stub.Start(pb.StartRequest(task_id="counter/0"))).blob
        too_many = await status_of(transition(env, ["inc"] * 4, blob))
        assert too_many.code() == Code.INVALID_ARGUMENT and "max_batch_actions=3" in too_many.details()
        assert (await status_of(transition(env, [], blob))).code() == Code.INVALID_ARGUMENT
        assert (await status_of(transition(env, ["inc", " "], blob))).code() == Code.INVALID_ARGUMENT
        ended, = await transition(env, ["end"], blob)
        over = await status_of(transition(env, ["inc"], ended.blob))
        assert over.code() == Code.FAILED_PRECONDITION and "over" in over.details()
        no_state = await status_of(env.stub.Transition(pb.TransitionRequest(actions=["inc"])))
        assert no_state.code() == Code.INVALID_ARGUMENT


async def test_blobs_move_between_replicas_sharing_a_key():
    async with (serving(CounterDomain(), snapshot_key="k") as first,
                serving(CounterDomain(), snapshot_key="k") as second,
                serving(CounterDomain(), snapshot_key="other") as stranger):
        blob = (await first.stub.Start(pb.StartRequest(task_id="counter/0"))).blob
        there, = await transition(second, ["inc"], blob)
        back, = await transition(first, ["inc"], there.blob)
        assert back.step.observation == "count 2"
        refused = await status_of(transition(stranger, ["inc"], blob))
        assert refused.code() == Code.INVALID_ARGUMENT and "signature" in refused.details()


async def test_without_snapshots_states_are_replays():
    async with serving(NoSnapshotCounterDomain()) as env:
        started = await env.stub.Start(pb.StartRequest(task_id="counter/0"))
        assert not started.blob
        replay = pb.Replay(start=pb.StartRequest(task_id="counter/0"), actions=["inc", "oops"])
        result, = await transition(env, ["inc"], replay=replay)
        assert (result.step.observation, result.step.steps, result.blob) == ("count 2", 3, b"")
        blob_refused = await status_of(transition(env, ["inc"], b"LATS..."))
        assert blob_refused.code() == Code.FAILED_PRECONDITION
        score = await env.stub.Score(pb.ScoreRequest(replay=replay))
        assert score.score == 1.0
        bad_task = pb.Replay(start=pb.StartRequest(task_id="nope"), actions=["inc"])
        assert (await status_of(transition(env, ["inc"], replay=bad_task))).code() == Code.NOT_FOUND
