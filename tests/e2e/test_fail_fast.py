"""Fail fast and say who: Solve without a gateway is refused within the
planner's gateway check (UNAVAILABLE, naming the gateway and its address),
whether nothing listens there or something listens and never answers; no run
is started for it. A gateway that restarts during a search is still waited
for (the model calls' own retry window stays)."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time

import grpc
import pytest

from lats_runtime.processes import _die_with_parent, running_services, wait_healthy
from lats_pb import planner_pb2 as pb
from lats_pb import planner_pb2_grpc as pb_grpc
from tests.e2e.test_game24_search import SCRIPT, TASK

pytestmark = pytest.mark.timeout(180)
CHECK_SECONDS = 2.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _solve_error(planner: str, env: str) -> tuple[grpc.RpcError, float]:
    started = time.monotonic()
    with grpc.insecure_channel(planner) as channel:
        with pytest.raises(grpc.RpcError) as refused:
            list(pb_grpc.PlannerStub(channel).Solve(
                pb.SolveRequest(env_address=env, task_id=TASK), timeout=60))
    return refused.value, time.monotonic() - started


def _stored_runs(planner: str) -> int:
    with grpc.insecure_channel(planner) as channel:
        return len(pb_grpc.PlannerStub(channel).ListRuns(pb.ListRunsRequest(), timeout=10).runs)


def test_solve_without_a_gateway_is_unavailable_at_once_naming_it():
    port = _free_port()
    specs = [("env", ["env", "game24"]),
             ("planner", ["planner", "--gateway", f"127.0.0.1:{port}", "--db", ":memory:",
                          "--gateway-check", str(CHECK_SECONDS)])]
    with running_services(specs, ready=False) as running:   # not ready: no gateway
        error, seconds = _solve_error(running["planner"].address, running["env"].address)
        assert error.code() == grpc.StatusCode.UNAVAILABLE
        assert f"LLM gateway at 127.0.0.1:{port}" in error.details()
        assert "DescribeBackend" in error.details() and "--gateway" in error.details()
        assert seconds < CHECK_SECONDS + 5, f"refused after {seconds:.1f}s"
        assert _stored_runs(running["planner"].address) == 0


def test_a_gateway_that_never_answers_is_named_too():
    """Something listens at the gateway's address but never speaks gRPC."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept_and_say_nothing():
        silent.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(silent.accept()[0])
            except OSError:
                continue

    threading.Thread(target=accept_and_say_nothing, daemon=True).start()
    address = f"127.0.0.1:{silent.getsockname()[1]}"
    try:
        specs = [("env", ["env", "game24"]),
                 ("planner", ["planner", "--gateway", address, "--db", ":memory:",
                              "--gateway-check", str(CHECK_SECONDS)])]
        with running_services(specs, ready=False) as running:   # not ready: no gateway
            error, seconds = _solve_error(running["planner"].address, running["env"].address)
        assert error.code() == grpc.StatusCode.UNAVAILABLE
        assert f"LLM gateway at {address}" in error.details()
        assert seconds < CHECK_SECONDS + 5, f"refused after {seconds:.1f}s"
    finally:
        stop.set()
        for connection in accepted:
            connection.close()
        silent.close()


def _gateway_on(port: int, script) -> subprocess.Popen:
    process = subprocess.Popen(
        [*_die_with_parent(), sys.executable, "-m", "lats", "serve", "gateway", "--backend",
         "scripted", "--script", str(script), "--latency", "0.3", "--host", "127.0.0.1",
         "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_healthy(f"127.0.0.1:{port}", 60)
    return process


def test_a_gateway_restarting_mid_search_is_still_waited_for():
    port = _free_port()
    gateway = _gateway_on(port, SCRIPT)
    specs = [("env", ["env", "game24"]),
             ("planner", ["planner", "--gateway", f"127.0.0.1:{port}", "--db", ":memory:",
                          "--gateway-check", str(CHECK_SECONDS)])]
    try:
        with running_services(specs) as running:
            request = pb.SolveRequest(env_address=running["env"].address, task_id=TASK,
                                      config=pb.SearchConfig(method="lats_paper", n_samples=2,
                                                             iterations=10, max_depth=4, seed=7))
            events, restarted = [], False
            with grpc.insecure_channel(running["planner"].address) as channel:
                for event in pb_grpc.PlannerStub(channel).Solve(request, timeout=120):
                    events.append(event)
                    if event.HasField("backpropagated") and not restarted:
                        gateway.kill()           # down for longer than the gateway check
                        gateway.wait()
                        time.sleep(CHECK_SECONDS + 1)
                        gateway = _gateway_on(port, SCRIPT)
                        restarted = True
            result = events[-1].finished
            assert restarted and result.status == pb.RUN_STATUS_SOLVED, result.error
            assert result.actions[-1] == "Answer: 6 * 5 - 10 + 4 = 24"
    finally:
        gateway.kill()
        gateway.wait()
