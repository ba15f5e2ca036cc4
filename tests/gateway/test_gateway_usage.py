"""Usage accounting per run and totals; budgets are not the gateway's."""

from lats_pb import llm_pb2

from llm_gateway.usage import UsageCounts, UsageLedger

from .helpers import USER, EchoBackend, running_gateway


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


async def test_the_gateway_keeps_no_budget_a_run_depends_on():
    # Budgets are the caller's (planner.model_client.GatewayModel): a request that
    # still carries one is served, so gateway replicas never disagree.
    backend = EchoBackend()
    async with running_gateway(backend) as client:
        request = llm_pb2.GenerateRequest(messages=[llm_pb2.ChatMessage(role="user", content="hi")],
                                          run_id="r", budget=llm_pb2.Budget(max_calls=1))
        for _ in range(3):
            await client._client.unary("Generate", request)
    assert len(backend.calls) == 3
