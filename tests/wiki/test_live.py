"""The live corpus on recorded Wikipedia responses: parsing, cache, retries, politeness."""

from __future__ import annotations

import grpc
import httpx
import pytest
from lats_pb import environment_pb2

from env_servers.wiki.corpora import open_live
from env_servers.wiki.corpus import CorpusError
from env_servers.wiki.domain import HotpotQADomain
from tests.env.helpers import serving
from tests.wiki.recorded_http import RecordedWikipedia

USER_AGENT = "lats-tests/1.0 (tests@example.org)"


@pytest.fixture
def wikipedia():
    return RecordedWikipedia()


@pytest.fixture
def live(make_settings, wikipedia):
    corpus = open_live(make_settings(corpus="live", user_agent=USER_AGENT),
                       transport=wikipedia, backoff_seconds=0, min_interval_seconds=0)
    yield corpus
    corpus.close()


def test_a_title_hit_follows_the_redirect_to_the_article(live, wikipedia):
    result = live.search("Milhouse")
    assert result.page.title == "Milhouse Van Houten"
    assert result.page.summary() == (
        "Milhouse Mussolini Van Houten is a recurring character in the Fox animated television "
        "series The Simpsons voiced by Pamela Hayden and created by Matt Groening. Milhouse is "
        "Bart Simpson's best friend in Mrs. Krabappel's fourth grade class at Springfield "
        "Elementary School. Milhouse first appeared in a 1988 commercial for Butterfinger. "
        "Groening gave him the name Milhouse because it was the \"most unfortunate name he "
        "could think of for a kid\". Milhouse was named after U.S. president Richard Nixon, "
        "whose middle name was Milhous.")
    assert "[1]" not in " ".join(result.page.sentences), "citation markers are dropped"
    assert "edit" not in result.page.sentences[6]
    assert all(r.headers["user-agent"] == USER_AGENT for r in wikipedia.requests)


def test_a_miss_lists_the_search_results(live):
    result = live.search("Adam Clayton Powell")
    assert result.page is None
    assert result.similar == ("Adam Clayton Powell III", "Seventh Avenue (Manhattan)",
                              "Adam Clayton Powell Jr. State Office Building",
                              "Isabel Washington Powell", "Adam Clayton Powell (film)")
    assert live.search("Zzqxv Qqqx").similar == ()


def test_a_disambiguation_page_is_a_miss_listing_its_articles(live):
    result = live.search("High Plains")
    assert result.page is None
    assert result.similar == ("High Plains (United States)", "High Plains (Australia)")


def test_the_cache_answers_repeated_searches_and_page_reads(live, wikipedia, make_settings):
    live.search("Milhouse")
    live.search("Milhouse")
    assert live.page("Milhouse Van Houten").title == "Milhouse Van Houten"
    assert len(wikipedia.requests) == 2          # the redirect and the article, once
    assert live.page("No Such Article") is None   # a 404
    # the cache is a file: a new process with the same cache dir needs no network
    again = RecordedWikipedia()
    fresh = open_live(make_settings(corpus="live"), transport=again, min_interval_seconds=0)
    try:
        assert fresh.search("Milhouse").page.title == "Milhouse Van Houten"
        assert again.requests == []
    finally:
        fresh.close()


def test_transient_failures_are_retried(make_settings):
    flaky = RecordedWikipedia(failures={"Milhouse": [
        httpx.Response(503, text="busy"), httpx.ConnectTimeout("timed out")]})
    corpus = open_live(make_settings(corpus="live"), transport=flaky, backoff_seconds=0,
                       min_interval_seconds=0)
    try:
        assert corpus.search("Milhouse").page.title == "Milhouse Van Houten"
        assert flaky.searches() == ["Milhouse"] * 3
    finally:
        corpus.close()


def test_persistent_failures_become_a_corpus_error(make_settings):
    down = RecordedWikipedia(failures={"Milhouse": [httpx.ReadTimeout("slow")] * 3,
                                       "Adam Clayton Powell": [httpx.Response(403)]})
    corpus = open_live(make_settings(corpus="live"), transport=down, backoff_seconds=0,
                       min_interval_seconds=0, attempts=3)
    try:
        with pytest.raises(CorpusError, match="after retries"):
            corpus.search("Milhouse")
        assert down.searches() == ["Milhouse"] * 3
        with pytest.raises(CorpusError, match="HTTP 403"):
            corpus.search("Adam Clayton Powell")
    finally:
        corpus.close()


async def test_live_episodes_search_lookup_and_branch_through_grpc(make_domain, make_settings,
                                                                  wikipedia):
    corpus = open_live(make_settings(corpus="live"), transport=wikipedia,
                       min_interval_seconds=0)
    domain = make_domain(corpus=corpus, reward_mode="oracle")
    assert domain.offload_sync_calls, "network reads must not block the event loop"
    async with serving(domain) as env:
        describe = await env.stub.Describe(environment_pb2.DescribeRequest())
        assert list(describe.splits) == ["dev"]
        episode = await env.start("hotpotqa/0")
        assert (await episode.step("Search[Milhouse]")).info["page"] == "Milhouse Van Houten"
        fork = episode.fork()
        found = await fork.step("Lookup[named after]")
        assert found.observation == ("(Result 1 / 1) Milhouse was named after U.S. president "
                                     "Richard Nixon, whose middle name was Milhous.")
        miss = await episode.step("Search[Adam Clayton Powell]")
        assert miss.observation.startswith(
            "Could not find [Adam Clayton Powell]. Similar: ['Adam Clayton Powell III', ")
    assert len(wikipedia.requests) == 3, "the branch re-read the page from the cache"


async def test_an_unreachable_wikipedia_is_unavailable(make_domain, make_settings):
    down = RecordedWikipedia(failures={"Milhouse": [httpx.ConnectError("refused")] * 2})
    corpus = open_live(make_settings(corpus="live"), transport=down, backoff_seconds=0,
                       min_interval_seconds=0, attempts=2)
    async with serving(make_domain(corpus=corpus)) as env:
        episode = await env.start("hotpotqa/0")
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await episode.step("Search[Milhouse]")
    assert error.value.code() == grpc.StatusCode.UNAVAILABLE
    assert "offline corpus" in error.value.details()


def test_the_live_setting_selects_the_live_corpus(make_settings):
    settings = make_settings(corpus="live")
    domain = HotpotQADomain(settings, corpus=open_live(settings, min_interval_seconds=0))
    try:
        assert domain.corpus.name == "live" and domain.list_tasks("dev")[0] == "hotpotqa/0"
    finally:
        domain.close()
