"""LatencyBackend: another backend, answering only after a fixed delay.

It makes the offline backends (scripted, replay) behave like a real model
server in time: each call waits `seconds` (cancellable, so deadlines and
client cancellations still work) and then answers as the inner backend does.
Benchmarks use it to measure what a search does while the model works, and
tests use it to have time to kill a replica in the middle of a search.
"""

from __future__ import annotations

import asyncio

from llm_gateway.backends.base import Backend, GenerationRequest, GenerationResult


class LatencyBackend(Backend):
    def __init__(self, inner: Backend, seconds: float):
        if seconds < 0:
            raise ValueError(f"latency must be >= 0 seconds, got {seconds}")
        self.inner = inner
        self.seconds = seconds
        self.name = inner.name

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def max_concurrency(self):
        return self.inner.max_concurrency

    async def load(self) -> None:
        await self.inner.load()

    async def generate(self, request: GenerationRequest) -> GenerationResult:
        await asyncio.sleep(self.seconds)
        return await self.inner.generate(request)

    async def aclose(self) -> None:
        await self.inner.aclose()
