"""The planner's model client: busy time, and the run budget it enforces itself."""

import asyncio

import pytest

from planner.model_client import BudgetExhausted, BusyClock, GatewayModel, RunBudget, SamplingParams
from tests.gateway.helpers import EchoBackend, SlowBackend, running_gateway

USER = [("user", "hello")]


async def _hold(clock: BusyClock, delay: float, seconds: float) -> None:
    await asyncio.sleep(delay)
    with clock:
        await asyncio.sleep(seconds)


async def test_overlapping_calls_count_once_and_gaps_not_at_all():
    clock = BusyClock()
    # two overlapping calls over [0, 0.2], then a gap, then one call over [0.3, 0.4]
    await asyncio.gather(_hold(clock, 0.0, 0.2), _hold(clock, 0.05, 0.1), _hold(clock, 0.3, 0.1))
    assert clock.seconds == pytest.approx(0.3, abs=0.06)


async def test_token_budget_refuses_without_calling_the_gateway():
    backend = EchoBackend(prompt_tokens=10, completion_tokens=5)
    async with running_gateway(backend) as client:
        model = GatewayModel(client, "r", budget=RunBudget(max_total_tokens=30))
        await model.complete(USER, SamplingParams())      # 15 used
        await model.complete(USER, SamplingParams(n=1))   # 30 used
        with pytest.raises(BudgetExhausted, match="used 30 of its 30-token budget"):
            await model.complete(USER, SamplingParams())
    assert len(backend.calls) == 2 and model.usage.calls == 2


async def test_call_budget_holds_for_concurrent_calls_of_one_run():
    backend = SlowBackend(delay=0.1)
    async with running_gateway(backend) as client:
        model = GatewayModel(client, "r", budget=RunBudget(max_calls=3))
        outcomes = await asyncio.gather(*(model.complete(USER, SamplingParams())
                                          for _ in range(5)), return_exceptions=True)
    refused = [o for o in outcomes if isinstance(o, BudgetExhausted)]
    assert len(refused) == 2 and model.usage.calls == 3 and backend.max_in_flight == 3
    assert "3 of its 3-call budget" in str(refused[0])


async def test_a_call_cancelled_in_flight_still_counts_as_a_call():
    backend = SlowBackend(delay=5.0)
    async with running_gateway(backend) as client:
        model = GatewayModel(client, "r", budget=RunBudget(max_calls=2))
        call = asyncio.create_task(model.complete(USER, SamplingParams()))
        await asyncio.sleep(0.2)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
    assert model.usage.calls == 1 and model.usage.prompt_tokens == 0


def test_calls_are_counted_by_kind_root_or_deeper_actions_values_and_reflections():
    from planner.model_client import SamplingParams, call_kind

    kinds = [call_kind(SamplingParams(purpose=p, key=k)) for p, k in (
        ("act", "0"), ("act", "0#2"), ("act", "0@greedy"), ("act", "0.1"), ("act", "0.1#3"),
        ("act", "0.2@1#1"), ("value", "0.1"), ("reflect", "0.1.0"), ("cot", "0@0"),
        ("setup", "setup"))]
    assert kinds == ["act:root"] * 3 + ["act:deeper"] * 3 + ["value", "reflect", "cot", "setup"]
