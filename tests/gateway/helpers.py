"""Gateway test helpers: a real gRPC gateway on a loopback port, fake backends."""

from __future__ import annotations

import asyncio
import contextlib

import grpc

from lats_runtime.serving import ServerOptions, start_server
from llm_gateway.backends.base import (
    Backend,
    BackendError,
    Completion,
    GenerationRequest,
    GenerationResult,
)
from llm_gateway.service import LlmGatewayServicer, gateway_service_spec
from llm_gateway.settings import GatewaySettings
from planner.gateway_client import GatewayClient

USER = [("user", "hello there")]


@contextlib.asynccontextmanager
async def running_gateway(backend: Backend, settings: GatewaySettings | None = None,
                          *, timeout: float = 10.0, attempts: int = 1):
    """Yields a GatewayClient talking to a real gateway on 127.0.0.1:<free port>."""
    servicer = LlmGatewayServicer(backend, settings)
    server = await start_server([gateway_service_spec(servicer)],
                                ServerOptions(address="127.0.0.1:0"))
    client = GatewayClient(f"127.0.0.1:{server.port}", timeout=timeout,
                           attempts=attempts, backoff_initial=0.01, backoff_max=0.05)
    try:
        yield client
    finally:
        await client.close()
        await server.stop(0)
        await backend.aclose()


class EchoBackend(Backend):
    """Answers each choice with 'echo i', with fixed token counts."""

    name = "echo"

    def __init__(self, prompt_tokens: int = 10, completion_tokens: int = 5):
        self.prompt_tokens = prompt_tokens
        self.completion_tokens = completion_tokens
        self.calls: list[GenerationRequest] = []

    @property
    def model(self) -> str:
        return "echo-model"

    async def generate(self, request: GenerationRequest) -> GenerationResult:
        self.calls.append(request)
        return GenerationResult(
            choices=[Completion(f"echo {i}") for i in range(request.n)],
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            model="echo-model",
        )


class SlowBackend(Backend):
    """Sleeps `delay` seconds per call; tracks calls in flight and cancellations."""

    name = "slow"

    def __init__(self, delay: float):
        self.delay = delay
        self.in_flight = 0
        self.max_in_flight = 0
        self.cancelled = 0
        self.started = asyncio.Event()

    async def generate(self, request: GenerationRequest) -> GenerationResult:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        self.started.set()
        try:
            await asyncio.sleep(self.delay)
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        finally:
            self.in_flight -= 1
        return GenerationResult(choices=[Completion("slow")] * request.n,
                                prompt_tokens=1, completion_tokens=1)


class FailingBackend(Backend):
    """Raises `errors` in turn (then answers 'ok'); can return a wrong count."""

    name = "failing"

    def __init__(self, *errors: BaseException, wrong_count: bool = False):
        self.errors = list(errors)
        self.wrong_count = wrong_count
        self.calls = 0

    async def generate(self, request: GenerationRequest) -> GenerationResult:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        count = request.n + 1 if self.wrong_count else request.n
        return GenerationResult(choices=[Completion("ok")] * count)


def unavailable(message: str = "upstream down") -> BackendError:
    return BackendError(grpc.StatusCode.UNAVAILABLE, message)
