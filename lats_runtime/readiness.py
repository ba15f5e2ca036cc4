"""Readiness that follows the upstreams a server needs.

`watch_readiness(running, upstreams)` asks every upstream whether it answers,
at once and then every `interval` seconds, each with a deadline of `timeout`
seconds, and sets the server's readiness (`RunningServer.set_ready`): SERVING
while every one answers, NOT_SERVING while any does not. Liveness ("") is
left alone: a server whose upstream is down is alive, and restarting it would
not bring the upstream back. Each change is logged, naming the upstreams
that stopped answering. It runs until cancelled.

An `Upstream` is a name for logs and an async check. `grpc_health_check`
makes one from the upstream's own gRPC health service; an HTTP upstream
brings its own (e.g. the OpenEnv bridge's GET /health).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from lats_runtime.serving import RunningServer

log = logging.getLogger(__name__)

CHECK_INTERVAL_SECONDS = 1.0
CHECK_TIMEOUT_SECONDS = 2.0


@dataclass(frozen=True)
class Upstream:
    """A service this server needs. `answers(timeout)` is True while it answers
    within `timeout` seconds; False, or any exception, means it does not."""

    name: str
    answers: Callable[[float], Awaitable[bool]]


def grpc_health_check(channel: grpc.aio.Channel, service: str) -> Callable[[float], Awaitable[bool]]:
    """An `Upstream.answers` asking the gRPC health service behind `channel` about
    `service` (its readiness name; "" for the server as a whole). Give it the
    channel the server's real calls use: a channel still waiting to reconnect
    then shows as not answering, which is the truth for those calls."""
    stub = health_pb2_grpc.HealthStub(channel)
    request = health_pb2.HealthCheckRequest(service=service)

    async def answers(timeout: float) -> bool:
        reply = await stub.Check(request, timeout=timeout)
        return reply.status == health_pb2.HealthCheckResponse.SERVING

    return answers


async def _answers(upstream: Upstream, timeout: float) -> bool:
    try:
        return bool(await asyncio.wait_for(upstream.answers(timeout), timeout))
    except asyncio.CancelledError:
        raise
    except Exception:  # noqa: BLE001 - any failure to answer is "does not answer"
        return False


async def watch_readiness(running: RunningServer, upstreams: Sequence[Upstream], *,
                          interval: float = CHECK_INTERVAL_SECONDS,
                          timeout: float = CHECK_TIMEOUT_SECONDS) -> None:
    """Keeps `running`'s readiness in step with `upstreams` (see the module docstring)."""
    down: list[str] | None = None
    while True:
        answered = await asyncio.gather(*(_answers(u, timeout) for u in upstreams))
        now_down = [u.name for u, ok in zip(upstreams, answered) if not ok]
        if now_down != down:
            await running.set_ready(not now_down)
            if now_down:
                log.warning("not ready: %s does not answer", ", ".join(now_down))
            elif down is not None:
                log.info("ready again: %s answers", ", ".join(u.name for u in upstreams))
            down = now_down
        await asyncio.sleep(interval)
