"""The gateway's gRPC API served by the real local 0.5B model."""

from __future__ import annotations

import grpc
import pytest
from lats_pb import llm_pb2

from lats_runtime.serving import ServerOptions, start_server
from llm_gateway.backends.factory import make_backend
from llm_gateway.service import LlmGatewayServicer, gateway_service_spec
from planner.gateway_client import GatewayClient

pytestmark = pytest.mark.slow_model


async def test_generate_through_the_gateway(small_model_path):
    backend = make_backend("local", model="qwen2.5-coder-0.5b", model_path=small_model_path,
                           max_concurrency=1, n_ctx=2048)
    server = await start_server([gateway_service_spec(LlmGatewayServicer(backend))],
                                ServerOptions(address="127.0.0.1:0"))
    client = GatewayClient(f"127.0.0.1:{server.port}", timeout=60, attempts=1)
    try:
        described = await client.describe_backend()
        assert (described.backend, described.model) == ("local", "qwen2.5-coder-0.5b")

        response = await client.generate(
            [("user", "Write a long essay about compilers.")], n=3, max_tokens=5,
            temperature=0.8, seed=3, run_id="run-1")

        assert len(response.choices) == 3
        assert all(c.finish_reason == llm_pb2.FINISH_REASON_LENGTH for c in response.choices)
        assert response.usage.completion_tokens == 15
        assert response.usage.prompt_tokens > 0
        assert response.backend == "local"
        assert (await client.get_usage("run-1")).completion_tokens == 15

        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await client.generate([("user", "word " * 3000)], max_tokens=4)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        await client.close()
        await server.stop(0)
        await backend.aclose()
