"""GatewayClient: the planner's async client of the LLM gateway (one or many replicas).

The wire calls alone (Generate, GetUsage, DescribeBackend, with deadlines and
retries); `model_client.GatewayModel` adds the run's budget and usage on top.
Like `environment_client.py`, it lives with its caller: a service's client of
another service sits in the calling service, so no service imports another's
package (see tests/test_floors.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

import grpc
from lats_pb import llm_pb2, llm_pb2_grpc

from lats_runtime.calls import RetryPolicy, ServiceClient
from lats_runtime.readiness import Upstream, grpc_health_check

Message = llm_pb2.ChatMessage | tuple[str, str] | Mapping[str, str]
GATEWAY_SERVICE = llm_pb2.DESCRIPTOR.services_by_name["LlmGateway"].full_name


class GatewayClient:
    """Calls the gateway at `address` (host:port, a list, or dns:///name:port).

    Every call carries a deadline of `timeout` seconds. Only UNAVAILABLE is
    retried, and only when no gateway answered (a replica died or restarts):
    a gateway that answers UNAVAILABLE because its upstream failed has already
    retried upstream and marks the error not retryable, so retries never nest.
    Retries back off exponentially with jitter for up to `retry_window`
    seconds and `attempts` tries (0 = no cap), landing on the next replica.
    Errors surface as grpc.aio.AioRpcError (lats_runtime.calls.ServiceCallError)
    with the gateway's status code and a message naming the gateway.
    """

    def __init__(self, address: str, timeout: float = 120.0, *, attempts: int = 0,
                 retry_window: float = 30.0, backoff_initial: float = 0.1,
                 backoff_max: float = 2.0):
        self._address = address
        policy = RetryPolicy(window_seconds=retry_window, initial_backoff=backoff_initial,
                             max_backoff=backoff_max, max_attempts=attempts,
                             codes=frozenset({grpc.StatusCode.UNAVAILABLE}))
        self._client = ServiceClient("LLM gateway", address, llm_pb2_grpc.LlmGatewayStub,
                                     timeout=timeout, policy=policy)

    @property
    def address(self) -> str:
        return self._address

    async def generate(
        self,
        messages: Iterable[Message],
        *,
        n: int = 1,
        temperature: float = 1.0,
        stop: Iterable[str] = (),
        max_tokens: int = 0,
        seed: int | None = None,
        purpose: str = "",
        run_id: str = "",
        model: str = "",
        top_p: float = 0.0,
    ) -> llm_pb2.GenerateResponse:
        """Generates n choices; messages are ChatMessage, (role, content) or dicts."""
        request = llm_pb2.GenerateRequest(
            messages=[_chat_message(m) for m in messages],
            n=n,
            temperature=temperature,
            stop=list(stop),
            max_tokens=max_tokens,
            model=model,
            run_id=run_id,
            purpose=purpose,
            top_p=top_p,
        )
        if seed is not None:
            request.seed = seed
        return await self._client.unary("Generate", request)

    async def get_usage(self, run_id: str = "") -> llm_pb2.Usage:
        """The run's cumulative usage ("" = the gateway's totals)."""
        response = await self._client.unary("GetUsage", llm_pb2.GetUsageRequest(run_id=run_id))
        return response.usage

    async def describe_backend(self, *, within: float | None = None
                               ) -> llm_pb2.DescribeBackendResponse:
        """The backend's description and limits. `within` (seconds) bounds the
        whole call, retries included: each attempt's deadline and the retry window
        (default: the client's timeout and retry window)."""
        if within is None:
            return await self._client.unary("DescribeBackend", llm_pb2.DescribeBackendRequest())
        policy = dataclasses.replace(self._client.policy, window_seconds=within)
        return await self._client.unary("DescribeBackend", llm_pb2.DescribeBackendRequest(),
                                        policy=policy, timeout=within)

    def upstream(self) -> Upstream:
        """The gateway as an upstream of the planner's readiness: the gateway's own
        health check (its readiness, lats.v1.LlmGateway), over the channel model
        calls use."""
        return Upstream(f"LLM gateway at {self._address}",
                        grpc_health_check(self._client.channel, GATEWAY_SERVICE))

    async def close(self) -> None:
        await self._client.aclose()

    async def __aenter__(self) -> "GatewayClient":
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.close()


def _chat_message(message: Message) -> llm_pb2.ChatMessage:
    if isinstance(message, llm_pb2.ChatMessage):
        return message
    if isinstance(message, Mapping):
        return llm_pb2.ChatMessage(role=message["role"], content=message["content"])
    role, content = message
    return llm_pb2.ChatMessage(role=role, content=content)
