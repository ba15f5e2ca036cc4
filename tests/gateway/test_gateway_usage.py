"""Usage accounting per run, totals, and budgets."""

import asyncio

import grpc
import pytest
from lats_pb import llm_pb2

from llm_gateway.usage import UsageCounts, UsageLedger

from .helpers import USER, EchoBackend, SlowBackend, running_gateway


async def test_run_usage_is_cumulative_and_totals_span_runs():
    async with running_gateway(EchoBackend(prompt_tokens=10, completion_tokens=5)) as client:
        first = await client.generate(USER, run_id="a")
        second = await client.generate(USER, run_id="a", n=3)
        await client.generate(USER, run_id="b")
        await client.generate(USER)  # no run: counts only in the totals
        run_a = await client.get_usage("a")
        run_b = await client.get_usage("b")
        unknown = await client.get_usage("nobody")
        total = await client.get_usage("")
    assert (first.usage.calls, first.usage.prompt_tokens, first.usage.completion_tokens) == (1, 10, 5)
    assert first.run_usage.calls == 1
    assert (second.run_usage.calls, second.run_usage.prompt_tokens,
            second.run_usage.completion_tokens) == (2, 20, 10)
    assert (run_a.calls, run_a.prompt_tokens, run_a.completion_tokens) == (2, 20, 10)
    assert run_b.calls == 1
    assert unknown.calls == 0
    assert (total.calls, total.prompt_tokens, total.completion_tokens) == (4, 40, 20)
    assert first.backend == "echo" and first.model == "echo-model"


async def test_token_budget_refuses_without_calling_the_backend():
    backend = EchoBackend(prompt_tokens=10, completion_tokens=5)
    budget = llm_pb2.Budget(max_total_tokens=30)
    async with running_gateway(backend) as client:
        await client.generate(USER, run_id="r", budget=budget)  # 15 used
        await client.generate(USER, run_id="r", budget=budget)  # 30 used
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await client.generate(USER, run_id="r", budget=budget)
        other_run = await client.generate(USER, run_id="s", budget=budget)
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "run r has used 30 of its 30-token budget" in caught.value.details()
    assert len(backend.calls) == 3
    assert other_run.run_usage.calls == 1


async def test_call_budget_refuses_the_call_past_the_cap():
    backend = EchoBackend()
    budget = llm_pb2.Budget(max_calls=2)
    async with running_gateway(backend) as client:
        for _ in range(2):
            await client.generate(USER, run_id="r", budget=budget)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await client.generate(USER, run_id="r", budget=budget)
        unbudgeted = await client.generate(USER, run_id="r")
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "run r has used 2 of its 2-call budget" in caught.value.details()
    assert unbudgeted.run_usage.calls == 3


def test_ledger_forgets_least_recently_used_runs_beyond_capacity():
    ledger = UsageLedger(max_runs=2)
    ledger.record("a", UsageCounts(1, 1, 1))
    ledger.record("b", UsageCounts(1, 1, 1))
    ledger.record("a", UsageCounts(1, 1, 1))  # a is now the most recent
    ledger.record("c", UsageCounts(1, 1, 1))
    assert len(ledger) == 2
    assert ledger.run("b").calls == 0
    assert ledger.run("a").calls == 2 and ledger.run("c").calls == 1
    assert ledger.total().calls == 4


async def test_call_budget_holds_for_concurrent_calls_of_one_run():
    backend = SlowBackend(delay=0.1)
    budget = llm_pb2.Budget(max_calls=2)
    async with running_gateway(backend) as client:
        outcomes = await asyncio.gather(
            *(client.generate([{"role": "user", "content": "hi"}], run_id="r", budget=budget)
              for _ in range(4)),
            return_exceptions=True,
        )
    refused = [o for o in outcomes if isinstance(o, grpc.aio.AioRpcError)]
    assert len(refused) == 2
    assert all(o.code() == grpc.StatusCode.RESOURCE_EXHAUSTED for o in refused)
    assert backend.max_in_flight == 2
