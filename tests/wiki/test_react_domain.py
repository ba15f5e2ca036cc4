"""The ReAct environment through a real gRPC server: observation formats, lookup
cursors across snapshots and branches, malformed actions, both reward modes, Score."""

from __future__ import annotations

import grpc
import pytest
from lats_pb import environment_pb2

from env_servers.wiki.domain import HotpotQADomain
from tests.env.helpers import serving

TASK = "hotpotqa/0"   # Were Scott Derrickson and Ed Wood of the same nationality? -> yes


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
        episode = await env.start(TASK)
        assert episode.reset.observation == (
            "Were Scott Derrickson and Ed Wood of the same nationality?")
        found = await episode.step("Thought 1: Start with him.\nAction 1: Search[scott derrickson]")
        assert found.observation.startswith("Scott Derrickson (born July 16, 1966) is an American")
        assert found.info["page"] == "Scott Derrickson" and not found.invalid_action
        first = await episode.step("Lookup[he]")
        second = await episode.step("Lookup[he]")
        third = await episode.step("Lookup[he]")
        assert first.observation == "(Result 1 / 2) He lives in Los Angeles, California."
        assert second.observation.startswith("(Result 2 / 2) He is best known for directing")
        assert third.observation == "No more results."
        # a new keyword restarts the cursor
        other = await episode.step("Lookup[Los Angeles]")
        assert other.observation == "(Result 1 / 1) He lives in Los Angeles, California."
        miss = await episode.step("Search[Corliss Archer]")
        assert miss.observation.startswith("Could not find [Corliss Archer]. Similar: ['")
        assert "'Meet Corliss Archer'" in miss.observation and miss.observation.endswith("].")
        assert miss.steps == 6 and miss.reward == 0 and not miss.terminated


async def test_a_branch_continues_on_its_parents_page_and_cursor(make_domain):
    async with serving(make_domain()) as env:
        episode = await env.start(TASK)
        await episode.step("Search[Scott Derrickson]")
        await episode.step("Lookup[he]")                          # cursor now at result 2
        assert len(episode.snapshot.blob) < 1024, (
            "the snapshot carries the title and cursor, not the page")
        fork_a, fork_b = episode.fork(), episode.fork()
        from_a = await fork_a.step("Lookup[he]")
        # a sibling's search must not move another branch's page (the official code's bug)
        await fork_b.step("Search[Ed Wood]")
        from_source = await episode.step("Lookup[he]")
        assert from_a.observation.startswith("(Result 2 / 2) He is best known")
        assert from_source.observation == from_a.observation
        after_b = await fork_b.step("Lookup[he]")
        assert "Scott" not in after_b.observation


async def test_malformed_actions_are_invalid_and_change_nothing(make_domain):
    async with serving(make_domain()) as env:
        episode = await env.start(TASK)
        no_page = await episode.step("Lookup[American]")
        assert no_page.invalid_action and "Search[entity] first" in no_page.observation
        for text in ("I think they are both American.", "Search[]", "Action 1: Think[hmm]"):
            reply = await episode.step(text)
            assert reply.invalid_action and not reply.terminated and reply.reward == 0
            assert reply.observation.startswith("Invalid action: ")
            assert "Search[entity], Lookup[keyword] or Finish[answer]" in reply.observation
        assert (await episode.step("Finish[yes]")).terminated
        with pytest.raises(grpc.aio.AioRpcError) as over:
            await episode.step("Search[Ed Wood]")
        assert over.value.code() == grpc.StatusCode.FAILED_PRECONDITION


async def test_honest_mode_never_rewards_and_score_reports_em_f1(make_domain):
    async with serving(make_domain(reward_mode="honest")) as env:
        episode = await env.start("hotpotqa/1")  # gold: Chief of Protocol
        at_reset = await episode.score()
        assert not at_reset.success and at_reset.metrics["em"] == 0
        finish = await episode.step("Finish[the Chief of Protocol]")
        assert (finish.reward, finish.observation) == (0.0, "Episode finished.")
        assert "em" not in finish.info, "honest steps reveal nothing about the gold answer"
        result = await episode.score()
    assert (result.score, result.success) == (1.0, True)
    assert dict(result.metrics) == {"em": 1.0, "f1": 1.0, "precision": 1.0, "recall": 1.0}


async def test_oracle_mode_rewards_exact_matches_only(make_domain):
    async with serving(make_domain(reward_mode="oracle")) as env:
        describe = await env.stub.Describe(environment_pb2.DescribeRequest())
        assert describe.reward_mode == environment_pb2.REWARD_MODE_ORACLE
        right = await env.start("hotpotqa/1")
        wrong = await env.start("hotpotqa/1")
        good = await right.step("Action 1: Finish[chief of protocol]")
        bad = await wrong.step("Finish[Protocol]")
        assert (good.reward, good.observation) == (1.0, "Episode finished, reward = 1")
        assert (bad.reward, bad.observation) == (0.0, "Episode finished, reward = 0")
        partial = await wrong.score()
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
        done = await env.step_one(reset.snapshot, "Finish[Scott Derrickson]")
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
