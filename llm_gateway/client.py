"""GatewayClient: a small async client for the LLM gateway."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import grpc
from lats_pb import llm_pb2, llm_pb2_grpc
from tenacity import (
    AsyncRetrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
    wait_random,
)

Message = llm_pb2.ChatMessage | tuple[str, str] | Mapping[str, str]


def _is_unavailable(error: BaseException) -> bool:
    return isinstance(error, grpc.aio.AioRpcError) and error.code() == grpc.StatusCode.UNAVAILABLE


class GatewayClient:
    """Calls a gateway at `address` ("host:port").

    Every call carries a deadline of `timeout` seconds. Only UNAVAILABLE is
    retried (up to `attempts` tries, exponential backoff with jitter); other
    errors surface as grpc.aio.AioRpcError with the gateway's status code.
    """

    def __init__(self, address: str, timeout: float = 120.0, *, attempts: int = 3,
                 backoff_initial: float = 0.2, backoff_max: float = 2.0):
        self._address = address
        self._timeout = timeout
        self._channel = grpc.aio.insecure_channel(address)
        self._stub = llm_pb2_grpc.LlmGatewayStub(self._channel)
        self._attempts = attempts
        self._wait = wait_exponential(multiplier=backoff_initial, max=backoff_max) \
            + wait_random(0, backoff_initial)  # exponential backoff plus jitter

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
        budget: llm_pb2.Budget | None = None,
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
        if budget is not None:
            request.budget.CopyFrom(budget)
        return await self._call(self._stub.Generate, request)

    async def get_usage(self, run_id: str = "") -> llm_pb2.Usage:
        """The run's cumulative usage ("" = the gateway's totals)."""
        response = await self._call(self._stub.GetUsage, llm_pb2.GetUsageRequest(run_id=run_id))
        return response.usage

    async def describe_backend(self) -> llm_pb2.DescribeBackendResponse:
        return await self._call(self._stub.DescribeBackend, llm_pb2.DescribeBackendRequest())

    async def close(self) -> None:
        await self._channel.close()

    async def __aenter__(self) -> "GatewayClient":
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.close()

    async def _call(self, method, request):
        async for attempt in AsyncRetrying(
            stop=stop_after_attempt(self._attempts),
            wait=self._wait,
            retry=retry_if_exception(_is_unavailable),
            reraise=True,
        ):
            with attempt:
                return await method(request, timeout=self._timeout)


def _chat_message(message: Message) -> llm_pb2.ChatMessage:
    if isinstance(message, llm_pb2.ChatMessage):
        return message
    if isinstance(message, Mapping):
        return llm_pb2.ChatMessage(role=message["role"], content=message["content"])
    role, content = message
    return llm_pb2.ChatMessage(role=role, content=content)
