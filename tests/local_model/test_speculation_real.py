"""Speculative decoding (ngram prompt lookup) in LocalBackend, with the real 0.5B model.

The 0.5B is its own default draft model, so the draft mode falls back to no
draft here: that fallback is what is checked for it.
"""

from __future__ import annotations

import asyncio
import logging

import pytest

from llm_gateway import model_store
from llm_gateway.backends.base import FINISH_LENGTH, GenerationRequest
from llm_gateway.backends.local import LocalBackend
from llm_gateway.backends.speculation import Speculation

pytestmark = pytest.mark.slow_model

PROGRAM = ("def merge(intervals):\n    intervals = sorted(intervals)\n    merged = [list(intervals[0])]\n"
           "    for start, end in intervals[1:]:\n        if start <= merged[-1][1]:\n"
           "            merged[-1][1] = max(merged[-1][1], end)\n        else:\n"
           "            merged.append([start, end])\n    return merged\n")
COPY = (("user", "Copy this Python function exactly, then copy it a second time, then a third "
                 "time, with nothing else:\n" + PROGRAM),)


@pytest.fixture(scope="module")
def ngram_backend(small_model_path):
    backend = LocalBackend(model_path=small_model_path, n_ctx=2048, max_batch_n=2,
                           speculation=Speculation("ngram", ngram_size=4, draft_max=16))
    asyncio.run(backend.load())
    yield backend
    asyncio.run(backend.aclose())


async def test_usage_counts_the_emitted_tokens_and_drafts_apart(ngram_backend):
    result = await ngram_backend.generate(GenerationRequest(messages=COPY, n=2, max_tokens=48,
                                                            temperature=0.0))
    assert ngram_backend.speculation_in_effect == "ngram"
    assert [c.finish_reason for c in result.choices] == [FINISH_LENGTH, FINISH_LENGTH]
    assert result.completion_tokens == 2 * 48  # emitted, not drafted
    assert result.extra["draft_tokens"] > 0  # copying a program from the prompt is drafted
    assert 0 < result.extra["draft_accepted_tokens"] <= result.extra["draft_tokens"]


async def test_a_seed_reproduces_a_sample_under_speculation(ngram_backend):
    request = GenerationRequest(messages=COPY, n=2, max_tokens=40, temperature=0.9, seed=5)
    first = await ngram_backend.generate(request)
    again = await ngram_backend.generate(request)
    assert [c.text for c in first.choices] == [c.text for c in again.choices]
    other = await ngram_backend.generate(GenerationRequest(
        messages=COPY, n=2, max_tokens=40, temperature=0.9, seed=6))
    assert [c.text for c in other.choices] != [c.text for c in first.choices]


async def test_greedy_text_under_speculation_is_reproducible(ngram_backend):
    request = GenerationRequest(messages=COPY, max_tokens=40, temperature=0.0)
    texts = {(await ngram_backend.generate(request)).choices[0].text for _ in range(2)}
    assert len(texts) == 1


async def test_a_draft_model_that_is_the_model_itself_means_no_draft(small_model_path, caplog):
    backend = LocalBackend(model_store.FAST_MODEL, n_ctx=1024, max_batch_n=1,
                           speculation=Speculation("draft"))
    try:
        with caplog.at_level(logging.WARNING):
            result = await backend.generate(GenerationRequest(messages=COPY, max_tokens=8))
        assert backend.speculation_in_effect == "off"
        assert "no draft" in caplog.text
        assert result.completion_tokens == 8 and result.extra["draft_tokens"] == 0
    finally:
        await backend.aclose()
