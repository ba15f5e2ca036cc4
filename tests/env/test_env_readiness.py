"""A served domain's readiness (health service lats.environment.v2.Environment) is
NOT_SERVING until it is ready, and, for a domain with upstreams, while one does not
answer; liveness ("") is SERVING all along, unless the domain failed to get ready."""

from __future__ import annotations

import asyncio
import threading

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from env_servers.core.server import environment_service, report_readiness
from env_servers.core.servicer import EnvironmentServicer
from lats_runtime.readiness import Upstream
from lats_runtime.serving import ServerOptions, start_server
from tests.env.fakes import CounterDomain

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


class SlowDomain(CounterDomain):
    """Ready once `release` is set (a blocking ready(), like a catalog build)."""

    def __init__(self, fail: bool = False):
        super().__init__()
        self.release = threading.Event()
        self.fail = fail

    def ready(self) -> None:
        self.release.wait(10)
        if self.fail:
            raise RuntimeError("catalog build failed")


async def _statuses(port: int) -> tuple[int, int]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        whole = await stub.Check(health_pb2.HealthCheckRequest(), timeout=5)
        service = await stub.Check(health_pb2.HealthCheckRequest(service="lats.environment.v2.Environment"),
                                   timeout=5)
        return whole.status, service.status


async def _poll(port: int, wanted: tuple[int, int]) -> tuple[int, int]:
    for _ in range(100):
        found = await _statuses(port)
        if found == wanted:
            return found
        await asyncio.sleep(0.05)
    return found


@pytest.mark.parametrize("fail", [False, True])
async def test_health_turns_serving_only_when_the_domain_is_ready(fail):
    domain = SlowDomain(fail=fail)
    servicer = EnvironmentServicer(domain)
    running = await start_server([environment_service(servicer)],
                                 ServerOptions(ready_at_start=False))
    try:
        task = asyncio.create_task(report_readiness(domain, running))
        await asyncio.sleep(0.2)
        assert await _statuses(running.port) == (SERVING, NOT_SERVING)
        domain.release.set()
        await asyncio.wait_for(task, 5)
        wanted = (NOT_SERVING, NOT_SERVING) if fail else (SERVING, SERVING)
        assert await _poll(running.port, wanted) == wanted
    finally:
        await running.stop(0)


class FrontingDomain(CounterDomain):
    """Fronts an upstream that answers while `up` is true."""

    def __init__(self):
        super().__init__()
        self.up = True

    def upstreams(self) -> list[Upstream]:
        async def answers(timeout: float) -> bool:
            if not self.up:
                raise ConnectionRefusedError("upstream down")
            return True

        return [Upstream("the fake upstream", answers)]


async def test_readiness_follows_the_upstreams_while_liveness_stays():
    domain = FrontingDomain()
    running = await start_server([environment_service(EnvironmentServicer(domain))],
                                 ServerOptions(ready_at_start=False))
    task = asyncio.create_task(report_readiness(domain, running))
    try:
        assert await _poll(running.port, (SERVING, SERVING)) == (SERVING, SERVING)
        domain.up = False
        assert await _poll(running.port, (SERVING, NOT_SERVING)) == (SERVING, NOT_SERVING)
        domain.up = True
        assert await _poll(running.port, (SERVING, SERVING)) == (SERVING, SERVING)
    finally:
        task.cancel()
        await running.stop(0)
