"""`lats health`, the containers' health check: gRPC servers (liveness, and with
--service a service's readiness), and with --http the run viewer (GET /healthz),
each against a real server; a server that is not there is exit 1 with the
address it tried."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys

import pytest

from lats_runtime.processes import start_service
from planner.runs import open_run_store

pytestmark = pytest.mark.timeout(120)


def health(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lats.health", *args], capture_output=True,
                          text=True, timeout=60)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def _empty_store(db: str) -> None:
    store = open_run_store(db)
    await store.open()
    await store.close()


def test_the_viewer_is_healthy_over_http_and_a_missing_one_is_not(tmp_path):
    db = str(tmp_path / "runs.sqlite3")
    asyncio.run(_empty_store(db))
    viewer = start_service("ui", ["ui", "--db", db])
    try:
        answered = health("--http", viewer.address)
        assert answered.returncode == 0, answered.stderr
        assert f"http://{viewer.address}/healthz: HTTP 200" in answered.stdout
        # The viewer speaks HTTP, not gRPC: the gRPC check must not pass it.
        assert health("--timeout", "2", viewer.address).returncode == 1
    finally:
        viewer.stop()
    missing = f"127.0.0.1:{_closed_port()}"
    refused = health("--http", "--timeout", "2", missing)
    assert refused.returncode == 1 and f"http://{missing}/healthz" in refused.stderr


def test_a_grpc_server_is_serving_and_a_missing_one_is_not():
    server = start_service("game24", ["env", "game24"])
    try:
        answered = health(server.address)
        assert answered.returncode == 0 and "SERVING" in answered.stdout, answered.stderr
    finally:
        server.stop()
    missing = f"127.0.0.1:{_closed_port()}"
    assert health("--timeout", "2", missing).returncode == 1


def test_a_planner_without_its_gateway_is_alive_but_not_ready():
    gateway = f"127.0.0.1:{_closed_port()}"
    planner = start_service("planner", ["planner", "--gateway", gateway, "--db", ":memory:"],
                            ready=False)
    try:
        assert health(planner.address).returncode == 0                  # alive
        refused = health("--service", "lats.v1.Planner", planner.address)
        assert refused.returncode == 1 and "NOT_SERVING" in refused.stderr, refused.stderr
    finally:
        planner.stop()
