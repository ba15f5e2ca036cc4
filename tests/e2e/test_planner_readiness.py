"""Readiness that tells the truth, on real processes: a planner's liveness (health
service "") stays SERVING while it runs; its readiness (health service
lats.v1.Planner) is NOT_SERVING while no LLM gateway answers and SERVING again
within seconds once one does. After a gateway restart on the same port, the
planner takes a new search within seconds (it used to refuse them for 20-30 s
while its health already said SERVING)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from lats_pb import planner_pb2 as pb
from lats_pb import planner_pb2_grpc as pb_grpc
from lats_runtime.processes import _die_with_parent, running_services, wait_healthy
from tests.e2e.test_game24_search import SCRIPT, TASK

pytestmark = pytest.mark.timeout(180)
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
READINESS = "lats.v1.Planner"
PROMPTLY = 5.0            # seconds: readiness follows the gateway within this
# Down long enough for gRPC's default reconnect backoff (1 s, x1.6 per attempt,
# up to 120 s) to grow to 8-13 s between attempts: what made the planner deaf.
GATEWAY_DOWN_SECONDS = 15.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _gateway_on(port: int) -> subprocess.Popen:
    process = subprocess.Popen(
        [*_die_with_parent(), sys.executable, "-m", "lats", "serve", "gateway", "--backend",
         "scripted", "--script", str(SCRIPT), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_healthy(f"127.0.0.1:{port}", 60)
    return process


def _stop(process: subprocess.Popen) -> None:
    process.kill()
    process.wait()


def _status(address: str, service: str) -> int:
    with grpc.insecure_channel(address) as channel:
        return health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service=service), timeout=5).status


def _until(condition, seconds: float) -> float:
    """Seconds until `condition()` held (polled every 0.1 s); fails after `seconds`."""
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < seconds, f"not within {seconds:g}s"
        time.sleep(0.1)
    took = time.monotonic() - started
    assert took < seconds, f"took {took:.1f}s, not within {seconds:g}s"
    return took


def _search_accepted(planner: str, env: str) -> bool:
    """A small search runs to its end (False: the planner refused it)."""
    request = pb.SolveRequest(env_address=env, task_id=TASK,
                              config=pb.SearchConfig(method="lats_paper", n_samples=2,
                                                     iterations=10, max_depth=4, seed=7))
    with grpc.insecure_channel(planner) as channel:
        try:
            events = list(pb_grpc.PlannerStub(channel).Solve(request, timeout=60))
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.UNAVAILABLE, error
            return False
    return events[-1].finished.status == pb.RUN_STATUS_SOLVED


@pytest.fixture
def gateway_port():
    return _free_port()


def _suite(port: int):
    return running_services([
        ("env", ["env", "game24"]),
        ("planner", ["planner", "--gateway", f"127.0.0.1:{port}", "--db", ":memory:",
                     "--gateway-check", "2"])])


def test_readiness_follows_the_gateway_while_liveness_stays(gateway_port):
    gateway = _gateway_on(gateway_port)
    try:
        with _suite(gateway_port) as running:
            planner = running["planner"].address
            _until(lambda: _status(planner, READINESS) == SERVING, PROMPTLY)
            assert _status(planner, "") == SERVING
            _stop(gateway)
            _until(lambda: _status(planner, READINESS) == NOT_SERVING, PROMPTLY)
            assert _status(planner, "") == SERVING, "liveness must not follow the gateway"
            gateway = _gateway_on(gateway_port)
            _until(lambda: _status(planner, READINESS) == SERVING, PROMPTLY)
            assert _search_accepted(planner, running["env"].address)
    finally:
        _stop(gateway)


def _a_reconnect_attempt_after(port: int, seconds: float) -> None:
    """Listens on the gateway's port in its stead and returns right after the planner
    tried to reconnect there, once `seconds` have passed (each attempt is closed at once,
    so it fails as one to a dead gateway would)."""
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(16)
        listener.settimeout(0.1)
        started = time.monotonic()
        while time.monotonic() - started < seconds + 120:
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            connection.close()
            if time.monotonic() - started >= seconds:
                return
    raise AssertionError("the planner never tried to reconnect to its gateway")


def test_a_restarted_gateway_takes_searches_within_seconds(gateway_port):
    """The gateway comes back right after one of the planner's reconnect attempts, when
    gRPC's default backoff would wait 8-13 s before the next one."""
    gateway = _gateway_on(gateway_port)
    try:
        with _suite(gateway_port) as running:
            planner, env = running["planner"].address, running["env"].address
            assert _search_accepted(planner, env)
            _stop(gateway)
            _a_reconnect_attempt_after(gateway_port, GATEWAY_DOWN_SECONDS)
            gateway = _gateway_on(gateway_port)
            waited = _until(lambda: _search_accepted(planner, env), PROMPTLY)
            _until(lambda: _status(planner, READINESS) == SERVING, PROMPTLY)  # checked each 1 s
            print(f"\na search was accepted {waited:.1f}s after the gateway was back")
    finally:
        _stop(gateway)
