"""The OpenEnv bridge tells the truth about its upstream: while the OpenEnv server it
fronts does not answer, the bridge's readiness (health service
lats.environment.v2.Environment) is NOT_SERVING and its liveness ("") stays SERVING;
once the server is back on its address, the bridge is ready again within seconds."""

from __future__ import annotations

import socket
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from lats_runtime.processes import start_service
from tests.openenv.servers import gridwalk_server

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
READINESS = "lats.environment.v2.Environment"
PROMPTLY = 5.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _statuses(address: str) -> tuple[int, int]:
    """(liveness, readiness) of the server at `address`."""
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        return tuple(stub.Check(health_pb2.HealthCheckRequest(service=name), timeout=5).status
                     for name in ("", READINESS))


def _until(address: str, wanted: tuple[int, int]) -> None:
    started = time.monotonic()
    while (found := _statuses(address)) != wanted:
        assert time.monotonic() - started < PROMPTLY, f"still {found} after {PROMPTLY:g}s"
        time.sleep(0.1)


@pytest.mark.timeout(300)
def test_the_bridge_is_ready_only_while_its_openenv_server_answers():
    port = _free_port()
    with gridwalk_server(port=port) as url:
        bridge = start_service("bridge", ["env", "openenv", "--url", f"{url}/steady",
                                          "--tasks", "2"], timeout=120)
    try:
        _until(bridge.address, (SERVING, NOT_SERVING))       # the server is gone
        with gridwalk_server(port=port):                     # back, on the same address
            _until(bridge.address, (SERVING, SERVING))
        _until(bridge.address, (SERVING, NOT_SERVING))
    finally:
        bridge.stop()
