"""Concurrency cap, deadlines, error mapping, DescribeBackend and the client."""

import asyncio
import socket
import time

import grpc
import pytest

from lats_runtime.serving import ServerOptions, start_server
from llm_gateway.backends.base import BackendError
from llm_gateway.service import LlmGatewayServicer, gateway_service_spec
from llm_gateway.settings import GatewaySettings
from planner.gateway_client import GatewayClient

from .helpers import USER, EchoBackend, FailingBackend, SlowBackend, running_gateway, unavailable


async def test_concurrency_limit_caps_backend_calls_in_flight():
    backend = SlowBackend(delay=0.1)
    async with running_gateway(backend, GatewaySettings(max_concurrency=2)) as client:
        started = time.monotonic()
        responses = await asyncio.gather(*(client.generate(USER) for _ in range(6)))
        elapsed = time.monotonic() - started
    assert len(responses) == 6
    assert backend.max_in_flight == 2
    assert elapsed >= 0.29  # three waves of two


async def test_client_deadline_cancels_the_backend_work():
    backend = SlowBackend(delay=30)
    async with running_gateway(backend, timeout=0.3) as client:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await client.generate(USER)
        for _ in range(100):
            if backend.cancelled:
                break
            await asyncio.sleep(0.02)
    assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert backend.cancelled == 1
    assert backend.in_flight == 0


async def test_backend_error_keeps_its_status_code():
    backend = FailingBackend(BackendError(grpc.StatusCode.FAILED_PRECONDITION, "no model file"))
    async with running_gateway(backend) as client:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await client.generate(USER)
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert caught.value.server_details == "no model file"
    assert caught.value.details().startswith("LLM gateway at 127.0.0.1:")   # names the service


async def test_unexpected_exception_is_internal_and_the_server_keeps_serving():
    backend = FailingBackend(RuntimeError("boom"), ZeroDivisionError())
    async with running_gateway(backend) as client:
        for expected in ("RuntimeError: boom", "ZeroDivisionError"):
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await client.generate(USER)
            assert caught.value.code() == grpc.StatusCode.INTERNAL
            assert expected in caught.value.details()
        ok = await client.generate(USER, n=2)
    assert [c.text for c in ok.choices] == ["ok", "ok"]


async def test_a_backend_returning_the_wrong_number_of_choices_is_internal():
    async with running_gateway(FailingBackend(wrong_count=True)) as client:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await client.generate(USER, n=2)
    assert caught.value.code() == grpc.StatusCode.INTERNAL
    assert "3 choices for n=2" in caught.value.details()


async def test_failed_calls_are_not_counted():
    async with running_gateway(FailingBackend(RuntimeError("x"))) as client:
        with pytest.raises(grpc.aio.AioRpcError):
            await client.generate(USER, run_id="r")
        usage = await client.get_usage("r")
    assert usage.calls == 0


async def test_describe_backend():
    async with running_gateway(EchoBackend(), GatewaySettings(max_concurrency=3)) as client:
        described = await client.describe_backend()
    assert (described.backend, described.model, described.max_concurrency) == (
        "echo", "echo-model", 3)


async def test_an_upstream_failure_is_not_retried_again_by_the_client():
    # The backend retried upstream already; the client must not multiply that.
    flaky = FailingBackend(unavailable(), unavailable())
    async with running_gateway(flaky, attempts=3) as client:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await client.generate(USER)
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE and flaky.calls == 1
        assert ("lats-retryable", "false") in tuple(caught.value.trailing_metadata())
        with pytest.raises(grpc.aio.AioRpcError):
            await client.generate(USER)
        ok = await client.generate(USER)
    assert ok.choices[0].text == "ok" and flaky.calls == 3

    invalid = FailingBackend(BackendError(grpc.StatusCode.INVALID_ARGUMENT, "bad"))
    async with running_gateway(invalid, attempts=3) as client:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await client.generate(USER)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT and invalid.calls == 1


async def test_the_client_retries_when_no_gateway_answers():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = GatewayClient(f"127.0.0.1:{port}", timeout=5, retry_window=10,
                           backoff_initial=0.05, backoff_max=0.2)

    async def start_late():
        await asyncio.sleep(0.5)   # a replica restarting
        return await start_server([gateway_service_spec(LlmGatewayServicer(EchoBackend()))],
                                  ServerOptions(address=f"127.0.0.1:{port}"))

    late = asyncio.create_task(start_late())
    try:
        reply = await client.generate(USER)
        assert reply.choices[0].text
    finally:
        await client.close()
        await (await late).stop(0)
