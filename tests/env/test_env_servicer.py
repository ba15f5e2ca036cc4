"""EnvironmentServicer over real gRPC: limits, errors, Reset, Score, the retired version."""

from __future__ import annotations

import asyncio
import dataclasses
import time

import grpc
import pytest
from google.protobuf import struct_pb2
from lats_pb import environment_pb2

from lats_runtime.environment_versions import PROTOCOL
from env_servers.core.errors import TaskNotFound
from env_servers.core.snapshots import SnapshotCodec, SnapshotPayload, snapshot_key
from tests.env.fakes import TASKS, BlockingCounterDomain, CounterDomain
from tests.env.helpers import serving, status_of

pytestmark = pytest.mark.timeout(30)
Code = grpc.StatusCode
SOLVE_1076 = ["4 + 8 = 12 (left: 4 6 12)", "6 - 4 = 2 (left: 2 12)", "2 * 12 = 24 (left: 24)"]


async def test_tampered_and_foreign_blobs_are_invalid_argument(game24):
    async with (serving(game24, snapshot_key="k") as env,
                serving(game24, snapshot_key="other") as stranger):
        first = await env.step_one((await env.reset("game24/1076")).snapshot, SOLVE_1076[0])
        blob = bytearray(first.snapshot.blob)
        blob[len(blob) // 2] ^= 0xFF
        tampered = environment_pb2.Snapshot(blob=bytes(blob))
        error = await status_of(env.step(tampered, SOLVE_1076[1]))
        assert error.code() == Code.INVALID_ARGUMENT and "signature" in error.details()
        assert (await status_of(env.score(tampered))).code() == Code.INVALID_ARGUMENT
        error = await status_of(stranger.step(first.snapshot, SOLVE_1076[1]))
        assert error.code() == Code.INVALID_ARGUMENT and "another key" in error.details()


async def test_snapshots_continue_on_replicas_that_share_a_key(game24):
    async with (serving(game24, snapshot_key="shared") as first,
                serving(game24, snapshot_key="shared") as second):
        there = await second.step_one((await first.reset("game24/1076")).snapshot, SOLVE_1076[0])
        back = await first.step_one(there.snapshot, SOLVE_1076[1])
        assert (back.observation, back.steps) == ("left: 2 12", 2)


async def test_a_snapshot_is_a_point_to_revert_to(game24):
    async with serving(game24) as env:
        start = (await env.reset("game24/1076")).snapshot
        branch_a = await env.step_one(start, "4 + 8 = 12 (left: 4 6 12)")
        branch_b = await env.step_one(start, "4 * 6 = 24 (left: 4 8 24)")
        again_a = await env.step_one(start, "4 + 8 = 12 (left: 4 6 12)")
        assert (branch_b.observation, branch_b.steps) == ("left: 4 8 24", 1)
        assert (again_a.observation, again_a.snapshot) == (branch_a.observation,
                                                           branch_a.snapshot)


async def test_step_after_the_end_is_failed_precondition(game24):
    async with serving(game24) as env:
        start = (await env.reset("game24/1076")).snapshot
        final = await env.step_one(start, "Answer: (6 - 4) * (4 + 8) = 24")
        assert (final.terminated, final.truncated, final.reward) == (True, False, 1.0)
        assert final.info["solved"] is True
        error = await status_of(env.step(final.snapshot, "4 + 8 = 12 (left: 4 6 12)"))
        assert error.code() == Code.FAILED_PRECONDITION and "terminated" in error.details()


async def test_every_step_counts_and_the_last_truncates(game24):
    async with serving(game24, max_steps=3) as env:
        start = (await env.reset("game24/1076")).snapshot
        replies = await env.play(start, ["nonsense", SOLVE_1076[0], "nonsense"])
        assert [r.steps for r in replies] == [1, 2, 3]
        assert [r.invalid_action for r in replies] == [True, False, True]
        assert [r.truncated for r in replies] == [False, False, True]
        assert not any(r.terminated for r in replies)
        error = await status_of(env.step(replies[-1].snapshot, SOLVE_1076[1]))
        assert error.code() == Code.FAILED_PRECONDITION and "max_steps=3" in error.details()
        limits = (await env.stub.Describe(environment_pb2.DescribeRequest())).limits
        assert limits.max_steps == 3


async def test_invalid_action_keeps_the_state_even_if_the_domain_changed_it():
    async with serving(CounterDomain()) as env:
        bad = await env.step_one((await env.reset("counter/0")).snapshot, "jump")
        assert bad.invalid_action and bad.steps == 1
        good = await env.step_one(bad.snapshot, "inc")
        assert good.observation == "count 1" and good.info["count"] == 1 and good.steps == 2


async def test_oversized_requests(game24):
    async with serving(game24) as env:
        start = (await env.reset("game24/900")).snapshot
        error = await status_of(env.step(start, "9" * 4097))
        assert error.code() == Code.INVALID_ARGUMENT and "max_action_bytes=4096" in error.details()
        error = await status_of(env.step(start, "9" * (5 * 1024 * 1024)))
        assert error.code() == Code.RESOURCE_EXHAUSTED
        for empty in ("", "   \n"):
            error = await status_of(env.step(start, empty))
            assert error.code() == Code.INVALID_ARGUMENT and "empty" in error.details()
        assert (await env.step_one(start, "4 + 5 = 9 (left: 6 9 10)")).steps == 1


async def test_blocking_domains_run_off_the_event_loop():
    async with serving(BlockingCounterDomain(delay=1.0)) as env:
        start = (await env.reset("counter/0")).snapshot
        slow = asyncio.ensure_future(env.step(start, "inc"))
        await asyncio.sleep(0.05)
        started = time.perf_counter()
        await env.stub.Describe(environment_pb2.DescribeRequest())
        assert time.perf_counter() - started < 0.6, "a blocking step stalled the server"
        assert (await slow)[0].observation == "slow"


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
        clamped = await env.stub.ListTasks(environment_pb2.ListTasksRequest(page_size=5000))
        assert len(clamped.task_ids) == 250
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
        assert reply.snapshot.blob
        inline.update({"numbers": [1]})
        error = await status_of(env.stub.Reset(environment_pb2.ResetRequest(inline_task=inline)))
        assert error.code() == Code.INVALID_ARGUMENT


async def test_score_grades_a_snapshot(game24):
    async with serving(game24) as env:
        start = (await env.reset("game24/1076")).snapshot
        assert not (await env.score(start)).success
        final = await env.step_one(start, "Answer: (6 - 4) * (4 + 8) = 24")
        reply = await env.score(final.snapshot)
        assert (reply.score, reply.success, dict(reply.metrics)) == (1.0, True, {"solved": 1.0})
        error = await status_of(env.stub.Score(environment_pb2.ScoreRequest()))
        assert error.code() == Code.INVALID_ARGUMENT and "snapshot" in error.details()


async def test_the_retired_version_is_told_which_version_this_is(game24):
    async with serving(game24) as env:
        channel = grpc.aio.insecure_channel(env.address)
        try:
            for method in ("Describe", "Reset", "Restore", "Transition", "Anything"):
                call = channel.unary_unary(f"/lats.v1.Environment/{method}")
                error = await status_of(call(b"\x0a\x03abc"))
                assert error.code() == Code.FAILED_PRECONDITION, method
                assert PROTOCOL in error.details() and "upgrade the client" in error.details()
            unknown = await status_of(channel.unary_unary("/lats.v9.Other/Describe")(b""))
            assert unknown.code() == Code.UNIMPLEMENTED
        finally:
            await channel.close()


async def test_stopping_closes_the_domain():
    domain = CounterDomain()
    async with serving(domain) as env:
        await env.reset("counter/0")
    assert domain.closed


async def test_reset_options_over_the_limit_are_refused_before_the_domain_reads_them():
    async with serving(CounterDomain(), max_option_bytes=100) as env:
        described = await env.stub.Describe(environment_pb2.DescribeRequest())
        assert described.limits.max_option_bytes == 100
        fits = await env.reset("counter/0", options={"k": "x" * 99})  # 1 + 99 bytes
        assert fits.observation == "count 0"
        error = await status_of(env.reset("counter/0", options={"k": "x" * 99, "j": ""}))
        assert error.code() == Code.INVALID_ARGUMENT
        assert "max_option_bytes=100" in error.details() and "'k'" in error.details()
        error = await status_of(env.reset("counter/0", options={"k": "é" * 50}))  # 101 bytes
        assert error.code() == Code.INVALID_ARGUMENT and "101 bytes" in error.details()
    async with serving(CounterDomain()) as env:
        described = await env.stub.Describe(environment_pb2.DescribeRequest())
        assert described.limits.max_option_bytes == 65536  # the domain's default


class _TaskNamingCounter(CounterDomain):
    """A counter whose state names its task, and whose Score looks the task up."""

    def score(self, state):
        if state.get("task", TASKS[0]) not in TASKS:
            raise TaskNotFound(f"unknown task {state['task']!r}")
        return super().score(state)


async def test_a_well_signed_snapshot_naming_an_unknown_task_is_not_found():
    """NOT_FOUND answers an unknown task id wherever it is named: a Reset, a replay's
    reset, or the state of a well-signed blob (a replica of a build with other tasks
    made it, so another replica may serve it) -- docs/protocol.md, Statuses."""
    domain = _TaskNamingCounter()
    codec = SnapshotCodec(snapshot_key("k"), domain.name, domain.version)
    forged = codec.encode(SnapshotPayload({"count": 0, "observation": "count 0",
                                           "task": "counter/404"}, 0, False))
    async with serving(domain, snapshot_key="k") as env:
        error = await status_of(env.score(environment_pb2.Snapshot(blob=forged)))
        assert error.code() == Code.NOT_FOUND and "counter/404" in error.details()
        assert (await status_of(env.reset("counter/404"))).code() == Code.NOT_FOUND


class _FailingCounter(CounterDomain):
    """Every valid step fails with an over-long kind; invalid ones name one too."""

    async def step(self, state, action):
        outcome = await super().step(state, action)
        return dataclasses.replace(outcome, failure_kind="overflow" * 10)


async def test_failure_kinds_are_sent_clipped_and_never_for_an_invalid_action():
    async with serving(_FailingCounter()) as env:
        start = (await env.reset("counter/0")).snapshot
        good = await env.step_one(start, "inc")
        assert good.failure_kind == ("overflow" * 10)[:32]
        bad = await env.step_one(start, "jump")
        assert bad.invalid_action and bad.failure_kind == ""
