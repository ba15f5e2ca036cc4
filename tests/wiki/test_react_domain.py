"""The ReAct environment through a real gRPC server: observation formats, lookup
cursors across Snapshot/Restore, malformed actions, both reward modes, Score."""

from __future__ import annotations

import grpc
import pytest
from lats_pb import environment_pb2

from env_servers.wiki.domain import HotpotQADomain
from tests.env.helpers import serving

TASK = "hotpotqa/0"   # Were Scott Derrickson and Ed Wood of the same nationality? -> yes


async def score(env, session_id):
    return await env.stub.Score(environment_pb2.ScoreRequest(session_id=session_id))


async def test_describe_reports_the_mode_corpus_splits_and_pack(make_domain):
    async with serving(make_domain()) as env:
        describe = await env.stub.Describe(environment_pb2.DescribeRequest())
        listed = await env.stub.ListTasks(environment_pb2.ListTasksRequest(page_size=1000))
        dev = await env.stub.ListTasks(environment_pb2.ListTasksRequest(split="dev"))
    assert (describe.name, describe.reward_mode) == ("hotpotqa", environment_pb2.REWARD_MODE_HONEST)
    assert list(describe.splits) == ["indexed", "dev"]
    assert listed.total == 100 and listed.task_ids[:2] == ["hotpotqa/0", "hotpotqa/1"]
    assert dev.total == 7405
    pack = describe.prompt_pack
    assert "Thus the correctness score is" in pack.value_template
    assert pack.search_hints.max_depth == 7 and pack.search_hints.n_samples == 5


async def test_search_lookup_and_cursor_formats(make_domain):
    async with serving(make_domain()) as env:
        reset = await env.reset(TASK)
        assert reset.observation == "Were Scott Derrickson and Ed Wood of the same nationality?"
        session = reset.session_id
        found = await env.step(session, "Thought 1: Start with him.\nAction 1: Search[scott derrickson]")
        assert found.observation.startswith("Scott Derrickson (born July 16, 1966) is an American")
        assert found.info["page"] == "Scott Derrickson" and not found.invalid_action
        first = await env.step(session, "Lookup[he]")
        second = await env.step(session, "Lookup[he]")
        third = await env.step(session, "Lookup[he]")
        assert first.observation == "(Result 1 / 2) He lives in Los Angeles, California."
        assert second.observation.startswith("(Result 2 / 2) He is best known for directing")
        assert third.observation == "No more results."
        # a new keyword restarts the cursor
        other = await env.step(session, "Lookup[Los Angeles]")
        assert other.observation == "(Result 1 / 1) He lives in Los Angeles, California."
        miss = await env.step(session, "Search[Corliss Archer]")
        assert miss.observation.startswith("Could not find [Corliss Archer]. Similar: ['")
        assert "'Meet Corliss Archer'" in miss.observation and miss.observation.endswith("].")
        assert miss.steps == 6 and miss.reward == 0 and not miss.terminated


async def test_a_fork_continues_on_its_parents_page_and_cursor(make_domain):
    async with serving(make_domain()) as env:
        session = (await env.reset(TASK)).session_id
        await env.step(session, "Search[Scott Derrickson]")
        await env.step(session, "Lookup[he]")                     # cursor now at result 2
        blob = await env.snapshot(session)
        assert len(blob) < 1024, "the snapshot carries the title and cursor, not the page"
        restored = await env.restore(blob)
        assert restored.observation == "(Result 1 / 2) He lives in Los Angeles, California."
        fork_a, fork_b = restored.session_id, (await env.restore(blob)).session_id
        from_a = await env.step(fork_a, "Lookup[he]")
        # a sibling's search must not move another fork's page (the official code's bug)
        await env.step(fork_b, "Search[Ed Wood]")
        from_source = await env.step(session, "Lookup[he]")
        assert from_a.observation.startswith("(Result 2 / 2) He is best known")
        assert from_source.observation == from_a.observation
        after_b = await env.step(fork_b, "Lookup[he]")
        assert "Scott" not in after_b.observation


async def test_malformed_actions_are_invalid_and_change_nothing(make_domain):
    async with serving(make_domain()) as env:
        session = (await env.reset(TASK)).session_id
        no_page = await env.step(session, "Lookup[American]")
        assert no_page.invalid_action and "Search[entity] first" in no_page.observation
        for text in ("I think they are both American.", "Search[]", "Action 1: Think[hmm]"):
            reply = await env.step(session, text)
            assert reply.invalid_action and not reply.terminated and reply.reward == 0
            assert reply.observation.startswith("Invalid action: ")
            assert "Search[entity], Lookup[keyword] or Finish[answer]" in reply.observation
        assert (await env.step(session, "Finish[yes]")).terminated
        with pytest.raises(grpc.aio.AioRpcError) as over:
            await env.step(session, "Search[Ed Wood]")
        assert over.value.code() == grpc.StatusCode.FAILED_PRECONDITION


async def test_honest_mode_never_rewards_and_score_reports_em_f1(make_domain):
    async with serving(make_domain(reward_mode="honest")) as env:
        session = (await env.reset("hotpotqa/1")).session_id  # gold: Chief of Protocol
        at_reset = await score(env, session)
        assert not at_reset.success and at_reset.metrics["em"] == 0
        finish = await env.step(session, "Finish[the Chief of Protocol]")
        assert (finish.reward, finish.observation) == (0.0, "Episode finished.")
        assert "em" not in finish.info, "honest steps reveal nothing about the gold answer"
        result = await score(env, session)
    assert (result.score, result.success) == (1.0, True)
    assert dict(result.metrics) == {"em": 1.0, "f1": 1.0, "precision": 1.0, "recall": 1.0}


async def test_oracle_mode_rewards_exact_matches_only(make_domain):
    async with serving(make_domain(reward_mode="oracle")) as env:
        describe = await env.stub.Describe(environment_pb2.DescribeRequest())
        assert describe.reward_mode == environment_pb2.REWARD_MODE_ORACLE
        right = (await env.reset("hotpotqa/1")).session_id
        wrong = (await env.reset("hotpotqa/1")).session_id
        good = await env.step(right, "Action 1: Finish[chief of protocol]")
        bad = await env.step(wrong, "Finish[Protocol]")
        assert (good.reward, good.observation) == (1.0, "Episode finished, reward = 1")
        assert (bad.reward, bad.observation) == (0.0, "Episode finished, reward = 0")
        partial = await score(env, wrong)
    assert not partial.success and partial.metrics["em"] == 0
    assert partial.metrics["f1"] == pytest.approx(0.5)
    assert "gold 'Chief of Protocol'" in partial.details


async def test_unknown_and_inline_tasks(make_domain, tmp_path):
    async with serving(make_domain(reward_mode="oracle")) as env:
        missing = env.stub.Reset(environment_pb2.ResetRequest(task_id="hotpotqa/99999"))
        with pytest.raises(grpc.aio.AioRpcError) as unknown:
            await missing
        assert unknown.value.code() == grpc.StatusCode.NOT_FOUND
        assert "hotpotqa/0" in unknown.value.details()
        inline = environment_pb2.ResetRequest()
        inline.inline_task.update({"question": "Who directed Sinister?",
                                   "answer": "Scott Derrickson"})
        reset = await env.stub.Reset(inline)
        assert reset.task_id == "inline" and reset.observation == "Who directed Sinister?"
        done = await env.step(reset.session_id, "Finish[Scott Derrickson]")
        assert done.reward == 1.0
        bad = environment_pb2.ResetRequest()
        bad.inline_task.update({"prompt": "?"})
        with pytest.raises(grpc.aio.AioRpcError) as invalid:
            await env.stub.Reset(bad)
        assert invalid.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_the_domain_is_registered():
    from env_servers.registry import BUILTIN_DOMAINS as DOMAINS

    assert DOMAINS["hotpotqa"].endswith(":HotpotQADomain")
    assert DOMAINS["hotpotqa-cot"].endswith(":HotpotQACoTDomain")
    assert HotpotQADomain.name == "hotpotqa"
