"""A client of this protocol version meets an older server: a clear error naming both versions.

A stand-in for a server of the retired lats.v1.Environment answers that
service's Describe (and nothing of lats.environment.v2). The planner's
environment client, the planner's Solve (through `lats solve`) and the
conformance kit each say which version the server speaks and which one they
need; a server with no environment service at all is named as such.
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent import futures

import grpc
import pytest
from grpc_health.v1 import health, health_pb2_grpc

from lats_runtime.processes import running_services
from lats_runtime.environment_versions import PROTOCOL
from planner.environment_client import EnvironmentClient


class RetiredServer(grpc.GenericRpcHandler):
    """Answers every lats.v1.Environment call with an empty message, as a v1 server would
    answer Describe; knows nothing of lats.environment.v2."""

    def service(self, details):
        if details.method.startswith("/lats.v1.Environment/"):
            return grpc.unary_unary_rpc_method_handler(lambda request, context: b"")
        return None


def _serve(*handlers) -> tuple[grpc.Server, str]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers(handlers)
    health_pb2_grpc.add_HealthServicer_to_server(health.HealthServicer(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    return server, f"127.0.0.1:{port}"


@pytest.fixture(scope="module")
def retired_server():
    server, address = _serve(RetiredServer())
    yield address
    server.stop(0)


@pytest.fixture(scope="module")
def no_environment():
    server, address = _serve()
    yield address
    server.stop(0)


async def _describe_error(address: str) -> grpc.aio.AioRpcError:
    client = EnvironmentClient(address)
    try:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await client.describe()
    finally:
        await client.aclose()
    return caught.value


async def test_the_client_names_the_version_an_old_server_speaks(retired_server):
    error = await _describe_error(retired_server)
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    details = error.details()
    assert "speaks lats.v1.Environment" in details and PROTOCOL in details
    assert "upgrade the environment server" in details


async def test_the_client_says_when_there_is_no_environment_at_all(no_environment):
    error = await _describe_error(no_environment)
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert f"does not serve {PROTOCOL}.Environment" in error.details()


@pytest.mark.timeout(120)
def test_lats_solve_reports_the_mismatch(retired_server, tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"rules": [], "default": "anything"}))
    specs = [("gateway", ["gateway", "--backend", "scripted", "--script", str(script)]),
             ("planner", ["planner", "--gateway", "{gateway}",
                          "--db", str(tmp_path / "runs.sqlite3")])]
    with running_services(specs) as running:
        out = subprocess.run(
            [sys.executable, "-m", "lats", "solve", "--planner", running["planner"].address,
             "--env", retired_server, "--task", "game24/900"],
            capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stdout + out.stderr
    assert "FAILED_PRECONDITION" in out.stderr and "lats.v1.Environment" in out.stderr
    assert PROTOCOL in out.stderr


@pytest.mark.timeout(60)
def test_the_kit_stops_with_the_mismatch(retired_server):
    out = subprocess.run([sys.executable, "-m", "lats", "conformance", retired_server, "-q"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == pytest.ExitCode.USAGE_ERROR, out.stdout[-3000:]
    assert "speaks lats.v1.Environment" in out.stdout + out.stderr
