"""EnvironmentServicer over real gRPC: limits, errors, snapshots across replicas."""

from __future__ import annotations

import asyncio
import time

import grpc
import pytest
from google.protobuf import struct_pb2
from lats_pb import environment_pb2

from tests.env.fakes import BlockingCounterDomain, CounterDomain
from tests.env.helpers import serving, status_of

pytestmark = pytest.mark.timeout(30)
Code = grpc.StatusCode


async def test_idle_sessions_expire_over_grpc(game24):
    async with serving(game24, session_ttl_seconds=0.3) as env:
        session = (await env.reset("game24/900")).session_id
        await asyncio.sleep(0.6)
        error = await status_of(env.step(session, "4 + 5 = 9 (left: 6 9 10)"))
        assert error.code() == Code.NOT_FOUND
        assert "expired" in error.details() and "Reset" in error.details()
        assert len(env.server.servicer.sessions) == 0


async def test_capacity_is_resource_exhausted(game24):
    async with serving(game24, max_sessions=3) as env:
        sessions = [(await env.reset("game24/900")).session_id for _ in range(3)]
        error = await status_of(env.reset("game24/900"))
        assert error.code() == Code.RESOURCE_EXHAUSTED
        assert "3 sessions open" in error.details() and "--max-sessions" in error.details()
        blob = await env.snapshot(sessions[0])
        assert (await status_of(env.restore(blob))).code() == Code.RESOURCE_EXHAUSTED
        await env.stub.Close(environment_pb2.CloseRequest(session_id=sessions[0]))
        assert (await env.restore(blob)).session_id


async def test_tampered_blob_is_invalid_argument(game24):
    async with serving(game24) as env:
        session = (await env.reset("game24/1076")).session_id
        await env.step(session, "4 + 8 = 12 (left: 4 6 12)")
        blob = bytearray(await env.snapshot(session))
        blob[len(blob) // 2] ^= 0xFF
        error = await status_of(env.restore(bytes(blob)))
        assert error.code() == Code.INVALID_ARGUMENT and "signature" in error.details()
        error = await status_of(env.stub.Score(environment_pb2.ScoreRequest(blob=bytes(blob))))
        assert error.code() == Code.INVALID_ARGUMENT


async def test_restore_works_across_replicas_that_share_a_key(game24):
    async with (serving(game24, snapshot_key="shared") as first,
                serving(game24, snapshot_key="shared") as second,
                serving(game24, snapshot_key="different") as stranger):
        session = (await first.reset("game24/1076")).session_id
        await first.step(session, "4 + 8 = 12 (left: 4 6 12)")
        blob = await first.snapshot(session)
        restored = await second.restore(blob)
        assert restored.observation == "left: 4 6 12"
        later = await second.step(restored.session_id, "6 - 4 = 2 (left: 2 12)")
        assert (later.observation, later.steps) == ("left: 2 12", 2)
        error = await status_of(stranger.restore(blob))
        assert error.code() == Code.INVALID_ARGUMENT and "another key" in error.details()


async def test_restore_forks_a_new_session(game24):
    async with serving(game24) as env:
        source = (await env.reset("game24/1076")).session_id
        blob = await env.snapshot(source)
        fork = (await env.restore(blob)).session_id
        assert fork != source
        await env.step(fork, "4 + 8 = 12 (left: 4 6 12)")
        untouched = await env.step(source, "4 * 6 = 24 (left: 4 8 24)")
        assert (untouched.observation, untouched.steps) == ("left: 4 8 24", 1)


async def test_step_after_the_end_is_failed_precondition(game24):
    async with serving(game24) as env:
        session = (await env.reset("game24/1076")).session_id
        final = await env.step(session, "Answer: (6 - 4) * (4 + 8) = 24")
        assert (final.terminated, final.truncated, final.reward) == (True, False, 1.0)
        assert final.info["solved"] is True
        error = await status_of(env.step(session, "4 + 8 = 12 (left: 4 6 12)"))
        assert error.code() == Code.FAILED_PRECONDITION and "terminated" in error.details()


async def test_every_step_counts_and_the_last_truncates(game24):
    async with serving(game24, max_steps=3) as env:
        session = (await env.reset("game24/1076")).session_id
        replies = [await env.step(session, action) for action in
                   ("nonsense", "4 + 8 = 12 (left: 4 6 12)", "nonsense")]
        assert [r.steps for r in replies] == [1, 2, 3]
        assert [r.invalid_action for r in replies] == [True, False, True]
        assert [r.truncated for r in replies] == [False, False, True]
        assert not any(r.terminated for r in replies)
        error = await status_of(env.step(session, "6 - 4 = 2 (left: 2 12)"))
        assert error.code() == Code.FAILED_PRECONDITION and "max_steps=3" in error.details()
        limits = (await env.stub.Describe(environment_pb2.DescribeRequest())).limits
        assert limits.max_steps == 3


async def test_invalid_action_keeps_the_state_even_if_the_domain_changed_it():
    async with serving(CounterDomain()) as env:
        session = (await env.reset("counter/0")).session_id
        bad = await env.step(session, "jump")
        assert bad.invalid_action and bad.steps == 1
        good = await env.step(session, "inc")
        assert good.observation == "count 1" and good.info["count"] == 1


async def test_oversized_requests(game24):
    async with serving(game24) as env:
        session = (await env.reset("game24/900")).session_id
        error = await status_of(env.step(session, "9" * 4097))
        assert error.code() == Code.INVALID_ARGUMENT and "max_action_bytes=4096" in error.details()
        error = await status_of(env.step(session, "9" * (5 * 1024 * 1024)))
        assert error.code() == Code.RESOURCE_EXHAUSTED
        for empty in ("", "   \n"):
            error = await status_of(env.step(session, empty))
            assert error.code() == Code.INVALID_ARGUMENT and "empty" in error.details()
        assert (await env.step(session, "4 + 5 = 9 (left: 6 9 10)")).steps == 1


async def test_concurrent_steps_on_one_session_run_one_at_a_time():
    async with serving(CounterDomain(delay=0.01, max_steps=50)) as env:
        session = (await env.reset("counter/0")).session_id
        replies = await asyncio.gather(*(env.step(session, "inc") for _ in range(20)))
        assert sorted(r.steps for r in replies) == list(range(1, 21))
        assert sorted(r.observation for r in replies) == sorted(f"count {i}" for i in range(1, 21))


async def test_blocking_domains_run_off_the_event_loop():
    async with serving(BlockingCounterDomain(delay=1.0)) as env:
        session = (await env.reset("counter/0")).session_id
        slow = asyncio.ensure_future(env.step(session, "inc"))
        await asyncio.sleep(0.05)
        started = time.perf_counter()
        await env.stub.Describe(environment_pb2.DescribeRequest())
        assert time.perf_counter() - started < 0.6, "a blocking step stalled the server"
        assert (await slow).observation == "slow"


async def test_list_tasks_paging_and_errors():
    async with serving(CounterDomain()) as env:
        seen, token = [], ""
        while True:
            reply = await env.stub.ListTasks(
                environment_pb2.ListTasksRequest(page_size=64, page_token=token))
            seen += reply.task_ids
            token = reply.next_page_token
            if not token:
                break
        assert len(seen) == len(set(seen)) == reply.total == 250
        default = await env.stub.ListTasks(environment_pb2.ListTasksRequest())
        assert len(default.task_ids) == 100
        for request in (environment_pb2.ListTasksRequest(page_token="bogus"),
                        environment_pb2.ListTasksRequest(split="nope")):
            assert (await status_of(env.stub.ListTasks(request))).code() == Code.INVALID_ARGUMENT


async def test_reset_errors():
    async with serving(CounterDomain()) as env:
        error = await status_of(env.reset("counter/999"))
        assert error.code() == Code.NOT_FOUND
        error = await status_of(env.stub.Reset(environment_pb2.ResetRequest()))
        assert error.code() == Code.INVALID_ARGUMENT
        inline = struct_pb2.Struct()
        inline.update({"n": 1})
        error = await status_of(env.stub.Reset(environment_pb2.ResetRequest(inline_task=inline)))
        assert error.code() == Code.FAILED_PRECONDITION and "inline_tasks" in error.details()


async def test_inline_task_and_reset_info(game24):
    async with serving(game24) as env:
        inline = struct_pb2.Struct()
        inline.update({"numbers": [3, 3, 8, 8]})
        reply = await env.stub.Reset(environment_pb2.ResetRequest(inline_task=inline))
        assert (reply.observation, reply.task_id) == ("3 3 8 8", "inline:3 3 8 8")
        assert list(reply.info["numbers"]) == [3, 3, 8, 8]
        inline.update({"numbers": [1]})
        error = await status_of(env.stub.Reset(environment_pb2.ResetRequest(inline_task=inline)))
        assert error.code() == Code.INVALID_ARGUMENT


async def test_score_a_session_and_a_blob(game24):
    async with serving(game24) as env:
        session = (await env.reset("game24/1076")).session_id
        await env.step(session, "Answer: (6 - 4) * (4 + 8) = 24")
        live = await env.stub.Score(environment_pb2.ScoreRequest(session_id=session))
        blob = await env.snapshot(session)
        stored = await env.stub.Score(environment_pb2.ScoreRequest(blob=blob))
        for reply in (live, stored):
            assert (reply.score, reply.success, dict(reply.metrics)) == (1.0, True, {"solved": 1.0})
        error = await status_of(env.stub.Score(environment_pb2.ScoreRequest()))
        assert error.code() == Code.INVALID_ARGUMENT


async def test_closed_sessions_are_gone(game24):
    async with serving(game24) as env:
        session = (await env.reset("game24/900")).session_id
        await env.stub.Close(environment_pb2.CloseRequest(session_id=session))
        error = await status_of(env.stub.Close(environment_pb2.CloseRequest(session_id=session)))
        assert error.code() == Code.NOT_FOUND
        assert (await status_of(env.snapshot(session))).code() == Code.NOT_FOUND


async def test_stopping_closes_sessions_and_the_domain():
    domain = CounterDomain()
    async with serving(domain) as env:
        await env.reset("counter/0")
        servicer = env.server.servicer
    assert domain.closed and len(servicer.sessions) == 0
