"""Step on snapshots: batches branch from one state, replays, and no state kept anywhere."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from lats_pb import environment_pb2 as pb

from tests.env.fakes import CounterDomain, ReplayCounterDomain
from tests.env.helpers import serving, status_of

pytestmark = pytest.mark.timeout(30)
Code = grpc.StatusCode


async def test_reset_and_steps_keep_no_state_in_the_server():
    async with serving(CounterDomain()) as env:
        reset = await env.reset("counter/3", seed=5)
        assert (reset.observation, reset.task_id) == ("count 0", "counter/3")
        assert reset.info["seed"] == 5 and reset.snapshot.blob
        first = await env.step_one(reset.snapshot, "inc")
        second = await env.step_one(first.snapshot, "inc")
        assert (second.observation, second.steps) == ("count 2", 2)
        servicer = env.server.servicer
        assert not [name for name, value in vars(servicer).items()
                    if isinstance(value, dict | list | set) and value], (
            "the servicer holds per-episode state")


async def test_a_batch_branches_from_one_state_in_order():
    async with serving(CounterDomain()) as env:
        one = await env.step_one((await env.reset("counter/0")).snapshot, "inc")
        results = await env.step(one.snapshot, "inc", "bogus", "end")
        assert [r.observation for r in results] == [
            "count 2", "Invalid action: 'bogus' is not inc or end.", "ended"]
        assert [r.steps for r in results] == [2, 2, 2]
        assert [r.invalid_action for r in results] == [False, True, False]
        assert results[2].terminated and results[2].reward == 1.0
        # An invalid action keeps the state: the next step counts on from 1.
        after_invalid = await env.step_one(results[1].snapshot, "inc")
        assert (after_invalid.observation, after_invalid.steps) == ("count 2", 3)


async def test_batches_run_concurrently():
    async with serving(CounterDomain(delay=0.3)) as env:
        start = (await env.reset("counter/0")).snapshot
        loop = asyncio.get_running_loop()
        began = loop.time()
        results = await env.step(start, *["inc"] * 6)
        assert len(results) == 6 and loop.time() - began < 1.2


async def test_batch_rules_and_ended_episodes():
    async with serving(CounterDomain(max_steps=5), max_batch_actions=3) as env:
        described = await env.stub.Describe(pb.DescribeRequest())
        assert described.limits.max_batch_actions == 3
        start = (await env.reset("counter/0")).snapshot
        too_many = await status_of(env.step(start, *["inc"] * 4))
        assert too_many.code() == Code.INVALID_ARGUMENT and "max_batch_actions=3" in too_many.details()
        assert (await status_of(env.step(start))).code() == Code.INVALID_ARGUMENT
        assert (await status_of(env.step(start, "inc", " "))).code() == Code.INVALID_ARGUMENT
        ended = await env.step_one(start, "end")
        over = await status_of(env.step(ended.snapshot, "inc"))
        assert over.code() == Code.FAILED_PRECONDITION and "over" in over.details()
        no_state = await status_of(env.stub.Step(pb.StepRequest(actions=["inc"])))
        assert no_state.code() == Code.INVALID_ARGUMENT and "snapshot" in no_state.details()


async def test_a_blob_server_refuses_replays():
    async with serving(CounterDomain()) as env:
        replay = pb.Snapshot(replay=pb.Replay(reset=pb.ResetRequest(task_id="counter/0")))
        refused = await status_of(env.step(replay, "inc"))
        assert refused.code() == Code.INVALID_ARGUMENT and "blobs" in refused.details()


async def test_replay_snapshots_name_states_by_their_actions():
    async with serving(ReplayCounterDomain()) as env:
        reset = await env.reset("counter/0")
        assert reset.snapshot.WhichOneof("kind") == "replay"
        assert reset.snapshot.replay.reset.task_id == "counter/0"
        first, second = await env.play(reset.snapshot, ["inc", "oops"])
        assert list(second.snapshot.replay.actions) == ["inc", "oops"]
        result = await env.step_one(second.snapshot, "inc")
        assert (result.observation, result.steps) == ("count 2", 3)
        assert list(result.snapshot.replay.actions) == ["inc", "oops", "inc"]
        assert (await env.score(second.snapshot)).score == 1.0
        blob_refused = await status_of(env.step(pb.Snapshot(blob=b"LATS..."), "inc"))
        assert blob_refused.code() == Code.INVALID_ARGUMENT and "replays" in blob_refused.details()
        bad_task = pb.Snapshot(replay=pb.Replay(reset=pb.ResetRequest(task_id="nope")))
        assert (await status_of(env.step(bad_task, "inc"))).code() == Code.NOT_FOUND
        past_the_end = pb.Snapshot(replay=pb.Replay(reset=pb.ResetRequest(task_id="counter/0"),
                                                    actions=["end", "inc"]))
        refused = await status_of(env.step(past_the_end, "inc"))
        assert refused.code() == Code.INVALID_ARGUMENT and "after its episode ended" in (
            refused.details())
