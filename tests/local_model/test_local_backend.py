"""LocalBackend against the real Qwen2.5-Coder-0.5B model (about a minute on 2 cores)."""

from __future__ import annotations

import asyncio
import time

import grpc
import pytest

from llm_gateway.backends.base import (
    FINISH_LENGTH,
    FINISH_STOP,
    BackendError,
    GenerationRequest,
)
from llm_gateway.backends.local import LocalBackend

pytestmark = pytest.mark.slow_model

COUNT = (("user", "Count from 1 to 30, separated by commas. Output only the numbers."),)
ESSAY = (("user", "Write a long essay about the history of computing."),)


def _request(messages=COUNT, **fields) -> GenerationRequest:
    return GenerationRequest(messages=messages, **{"max_tokens": 24, **fields})


async def test_n_samples_come_back_from_one_request(small_backend):
    result = await small_backend.generate(_request(
        (("user", "Name one random animal. One word."),), n=3, temperature=1.0, seed=11,
        max_tokens=8))

    assert len(result.choices) == 3
    assert all(choice.text.strip() for choice in result.choices)
    assert result.prompt_tokens > 0
    assert result.completion_tokens >= 3


async def test_more_samples_than_one_batch_are_split(small_backend):
    result = await small_backend.generate(_request(ESSAY, n=6, max_tokens=4, seed=1))

    assert len(result.choices) == 6  # max_batch_n=4: two llama.cpp requests
    assert all(choice.finish_reason == FINISH_LENGTH for choice in result.choices)
    assert result.completion_tokens == 6 * 4


async def test_max_tokens_gives_length_and_exact_usage(small_backend):
    result = await small_backend.generate(_request(ESSAY, n=2, max_tokens=7, temperature=0.7))

    assert [c.finish_reason for c in result.choices] == [FINISH_LENGTH, FINISH_LENGTH]
    assert result.completion_tokens == 2 * 7  # summed over choices, not just the first
    assert result.model == "qwen2.5-coder-0.5b"


async def test_a_stop_sequence_stops_and_is_not_returned(small_backend):
    result = await small_backend.generate(_request(temperature=0.0, stop=("7",),
                                                   max_tokens=60))
    choice = result.choices[0]

    assert choice.finish_reason == FINISH_STOP
    assert "7" not in choice.text
    assert "6" in choice.text
    assert result.completion_tokens < 60


async def test_greedy_decoding_is_deterministic(small_backend):
    first = await small_backend.generate(_request(temperature=0.0, seed=5))
    second = await small_backend.generate(_request(temperature=0.0, seed=5))
    assert first.choices[0].text == second.choices[0].text
    assert first.choices[0].text.replace(" ", "").startswith("1,2,3,4")


async def test_a_seed_reproduces_sampling(small_backend):
    prompt = (("user", "Invent a name for a new programming language."),)
    first = await small_backend.generate(_request(prompt, n=2, temperature=1.0, seed=42,
                                                  max_tokens=12))
    again = await small_backend.generate(_request(prompt, n=2, temperature=1.0, seed=42,
                                                  max_tokens=12))
    assert [c.text for c in first.choices] == [c.text for c in again.choices]


async def test_a_shared_prompt_prefix_is_reused(small_backend):
    prefix = "You are a careful Python reviewer. " + "Follow PEP 8 strictly. " * 60
    first = await small_backend.generate(_request(
        (("system", prefix), ("user", "Review: x=1")), max_tokens=2))
    second = await small_backend.generate(_request(
        (("system", prefix), ("user", "Review: def f(): pass")), max_tokens=2))

    assert first.prompt_tokens > 300
    assert second.extra["cached_prompt_tokens"] >= 300


async def test_too_long_a_prompt_is_an_invalid_argument(small_backend):
    with pytest.raises(BackendError) as caught:
        await small_backend.generate(_request((("user", "word " * 5000),)))
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "n_ctx" in caught.value.message


async def test_generation_does_not_block_the_event_loop(small_backend):
    ticks = 0

    async def ticker():
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    started = time.monotonic()
    await small_backend.generate(_request(ESSAY, max_tokens=16))
    elapsed = time.monotonic() - started
    task.cancel()
    assert ticks >= elapsed / 0.01 * 0.5


async def test_cancelling_a_call_stops_the_model_promptly(small_backend):
    long_call = asyncio.create_task(small_backend.generate(_request(ESSAY, max_tokens=2000,
                                                                    temperature=0.0)))
    while small_backend.running == 0:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    long_call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await long_call

    deadline = time.monotonic() + 10  # the 2000-token essay would run for minutes
    while small_backend.running and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert small_backend.running == 0
    result = await small_backend.generate(_request(max_tokens=4))
    assert len(result.choices) == 1


async def test_concurrent_calls_within_the_limit_all_succeed(small_backend):
    results = await asyncio.gather(*(
        small_backend.generate(_request(max_tokens=6, n=2, temperature=0.5)) for _ in range(3)))
    assert [len(r.choices) for r in results] == [2, 2, 2]


async def test_samples_that_outgrow_the_context_are_an_invalid_argument(small_model_path):
    backend = LocalBackend("qwen2.5-coder-0.5b", model_path=small_model_path, n_ctx=256,
                           max_batch_n=4)
    try:
        with pytest.raises(BackendError) as caught:
            await backend.generate(_request(ESSAY, n=4, max_tokens=200, temperature=0.8))
        assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
        assert "fewer samples" in caught.value.message
    finally:
        await backend.aclose()
