"""Requests the gateway must refuse with INVALID_ARGUMENT, over real gRPC."""

import grpc
import pytest
from lats_pb import llm_pb2

from llm_gateway.settings import GatewaySettings

from .helpers import USER, EchoBackend, running_gateway


@pytest.mark.parametrize(
    ("messages", "kwargs", "fragment"),
    [
        ([], {}, "messages is empty"),
        ([("bot", "hi")], {}, "messages[0].role is 'bot'"),
        ([("system", " "), ("user", "")], {}, "content is empty"),
        (USER, {"n": 17}, "n=17 exceeds"),
        (USER, {"max_tokens": 4097}, "max_tokens=4097 exceeds"),
        (USER, {"temperature": 2.5}, "temperature=2.5 is outside [0, 2]"),
        (USER, {"temperature": -0.1}, "temperature=-0.1 is outside"),
        (USER, {"temperature": float("nan")}, "temperature=nan"),
        (USER, {"top_p": 1.5}, "top_p=1.5 is outside [0, 1]"),
        (USER, {"stop": [f"s{i}" for i in range(9)]}, "9 stop sequences"),
        (USER, {"stop": ["x" * 101]}, "stop[0] is 101 characters"),
        (USER, {"stop": ["\n", ""]}, "stop[1] is empty"),
    ],
)
async def test_invalid_requests_are_refused_with_a_reason(messages, kwargs, fragment):
    backend = EchoBackend()
    async with running_gateway(backend) as client:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await client.generate(messages, **kwargs)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert fragment in caught.value.details()
    assert backend.calls == []


async def test_limits_follow_the_settings():
    settings = GatewaySettings(max_n=2, max_tokens_limit=10)
    async with running_gateway(EchoBackend(), settings) as client:
        ok = await client.generate(USER, n=2, max_tokens=10)
        assert len(ok.choices) == 2
        for kwargs in ({"n": 3}, {"max_tokens": 11}):
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await client.generate(USER, **kwargs)
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_wire_defaults_are_resolved_before_the_backend():
    backend = EchoBackend()
    async with running_gateway(backend) as client:
        await client.generate([("system", "be brief"), ("user", "hi")], n=0,
                              max_tokens=0, temperature=0.0, seed=7, purpose="act")
        await client.generate(USER, top_p=0.9, stop=["\n"])
    first, second = backend.calls
    assert first.n == 1 and first.max_tokens == GatewaySettings().default_max_tokens
    assert first.messages == (("system", "be brief"), ("user", "hi"))
    assert first.seed == 7 and first.top_p is None and first.purpose == "act"
    assert first.temperature == 0.0
    assert second.seed is None and second.top_p == pytest.approx(0.9)
    assert second.stop == ("\n",)
