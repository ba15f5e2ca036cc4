"""The TypeScript sliding-puzzle server, as real node processes.

Its own unit tests (`npm test`) pass; the conformance kit passes unchanged
against two replicas sharing a snapshot key; and the planner, unchanged,
searches it with a scripted model through `lats solve` and `lats bench`.
These tests need Node 20 and `make setup` (npm ci + build); without them
they fail, they do not skip.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections import deque
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from lats_runtime.processes import (ServiceProcess, _LISTENING, _die_with_parent, running_services,
                           wait_healthy)
from lats_pb import environment_pb2, environment_pb2_grpc
from tests.kit import (REPLAY_ONLY, REPLICA_KEY, STATES_ANSWER_KEYS, STATES_NO_STATE_KEYS,
                       run_kit, skipped)

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "env_servers_ts"
SCRIPT = Path(__file__).with_name("sliding_puzzle_script.json")
TASK = "sliding/test-000"
SOLUTION = ["slide 2 left", "slide 3 up", "slide 6 up"]


def _npm() -> str:
    npm = shutil.which("npm")
    assert npm, "npm is not on PATH: the TypeScript server needs Node 20 (see `make setup`)"
    assert (PACKAGE / "node_modules").is_dir(), "run `make setup` (npm ci in env_servers_ts)"
    return npm


@pytest.fixture(scope="module")
def built() -> Path:
    build = subprocess.run([_npm(), "run", "build"], cwd=PACKAGE, capture_output=True, text=True,
                           timeout=300)
    assert build.returncode == 0, build.stdout + build.stderr
    return PACKAGE / "dist" / "main.js"


def start_node_server(main: Path, name: str, *args: str, timeout: float = 30.0) -> ServiceProcess:
    """`node main.js ARGS --port 0`, waited on until it prints its address and is healthy.

    The server dies with this process, like the Python services: the kernel signals it
    when its parent dies (setpriv), and it watches its parent itself (--exit-with-parent)."""
    process = subprocess.Popen([*_die_with_parent(), "node", str(main), *args,
                                "--exit-with-parent", "--host", "127.0.0.1", "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output: deque = deque(maxlen=200)
    for line in process.stdout:
        output.append(line)
        match = _LISTENING.search(line)
        if match:
            break
    else:
        process.wait()
        raise AssertionError(f"{name} exited with {process.returncode}:\n{''.join(output)}")

    def pump():
        for rest in process.stdout:
            output.append(rest)

    threading.Thread(target=pump, daemon=True).start()
    service = ServiceProcess(name, process, match.group(1), output)
    wait_healthy(service.address, timeout)
    return service


@contextlib.contextmanager
def node_servers(main: Path, count: int, *args: str):
    servers = []
    try:
        for index in range(count):
            servers.append(start_node_server(main, f"puzzle-{index}", *args))
        yield servers
    finally:
        codes = [server.stop() for server in reversed(servers)]
    assert codes == [0] * count, f"a server did not stop cleanly: exit codes {codes}"


def test_npm_unit_tests_pass():
    run = subprocess.run([_npm(), "test"], cwd=PACKAGE, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout and "# pass " in run.stdout


def test_conformance_kit_passes_on_two_replicas(built, tmp_path):
    with node_servers(built, 2, "--snapshot-key", REPLICA_KEY) as replicas:
        results = run_kit(replicas, tmp_path / "kit.xml", task_id=TASK)
    # Skipped only: the checks for servers without inline tasks or without answer keys.
    assert skipped(results) == sorted([
        "test_inline_task_without_capability_is_failed_precondition", STATES_ANSWER_KEYS,
        STATES_NO_STATE_KEYS,
        *REPLAY_ONLY])
    for must_run in ("test_damaged_blobs_are_invalid_argument",
                     "test_a_retired_version_is_told_which_version_this_is[Step-lats.v1.Environment]",
                     "test_undecodable_request_bytes_are_invalid_argument[Step]"):
        assert results[must_run] == "passed", must_run


def test_hostile_requests_get_typed_statuses(built):
    with node_servers(built, 1, "--snapshot-key", REPLICA_KEY) as (server,):
        channel = grpc.insecure_channel(server.address)
        raw = channel.unary_unary("/lats.environment.v2.Environment/Step")
        with pytest.raises(grpc.RpcError) as caught:
            raw(b"\xff\xff\xff\xff\x0f", timeout=5)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT, caught.value.details()
        stub = environment_pb2_grpc.EnvironmentStub(channel)
        request = environment_pb2.ResetRequest()
        request.inline_task.update({"board": [1, 2, 3, 4, 5, 6, 7, float("nan"), 0]})
        with pytest.raises(grpc.RpcError) as caught:
            stub.Reset(request, timeout=5)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "finite" in caught.value.details()
        request = environment_pb2.ResetRequest()
        request.inline_task.update({"board": "1 2 3 4 5 6 7 _ 8"})
        reset = stub.Reset(request, timeout=5)
        step, = stub.Step(environment_pb2.StepRequest(
            snapshot=reset.snapshot, actions=["slide 8 left"]), timeout=5).results
        assert step.terminated and step.reward == 1.0
        assert stub.Score(environment_pb2.ScoreRequest(snapshot=step.snapshot), timeout=5).success
        retired = channel.unary_unary("/lats.v1.Environment/Transition")
        with pytest.raises(grpc.RpcError) as caught:
            retired(b"", timeout=5)
        assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "lats.environment.v2" in caught.value.details()
        channel.close()


def test_shutdown_turns_health_not_serving_and_exits_zero(built):
    server = start_node_server(built, "puzzle", "--snapshot-key", REPLICA_KEY)
    with grpc.insecure_channel(server.address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        reply = health.Check(health_pb2.HealthCheckRequest(service="lats.environment.v2.Environment"),
                             timeout=5)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
    assert server.stop() == 0
    assert "stopped" in server.log_tail()


@pytest.fixture(scope="module")
def search_services(built, tmp_path_factory):
    db = tmp_path_factory.mktemp("planner") / "runs.sqlite3"
    with node_servers(built, 1, "--snapshot-key", REPLICA_KEY) as (env,):
        specs = [
            ("gateway", ["gateway", "--backend", "scripted", "--script", str(SCRIPT)]),
            ("planner", ["planner", "--gateway", "{gateway}", "--db", str(db)]),
        ]
        with running_services(specs) as running:
            running["env"] = env
            yield running


def test_lats_solve_searches_the_typescript_server(search_services):
    out = subprocess.run(
        [sys.executable, "-m", "lats", "solve", "--planner", search_services["planner"].address,
         "--env", search_services["env"].address, "--task", TASK, "-n", "2", "-k", "8",
         "-d", "6", "--seed", "7"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    text = out.stdout
    assert "== SOLVED" in text and "verified by the environment: score 1" in text, text[-3000:]
    for action in SOLUTION:
        assert action in text


def test_lats_bench_searches_the_typescript_server(search_services, tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "lats", "bench", "--planner", search_services["planner"].address,
         "--env", search_services["env"].address, "--task", TASK, "-n", "2", "-k", "8",
         "-d", "6", "--out", str(tmp_path / "bench")],
        capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    assert "sliding_puzzle" in out.stdout, out.stdout[-3000:]


LAUNCHER = """
import subprocess, sys, time
log = open(sys.argv[2], "w")
server = subprocess.Popen(["node", sys.argv[1], "--exit-with-parent", "--snapshot-key", "k",
                           "--host", "127.0.0.1", "--port", "0"], stdout=log, stderr=log)
print(server.pid, flush=True)
time.sleep(600)
"""


def _gone(pid: int) -> bool:
    """No such process, or a zombie waiting for init to reap it."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def test_the_server_stops_when_the_process_that_started_it_dies(built, tmp_path):
    """A launcher killed with SIGKILL (no chance to stop anything) leaves no server
    behind: the server sees its parent gone and stops as on SIGTERM."""
    log = tmp_path / "server.log"
    launcher = subprocess.Popen([sys.executable, "-c", LAUNCHER, str(built), str(log)],
                                stdout=subprocess.PIPE, text=True)
    pid = int(launcher.stdout.readline())
    deadline = time.monotonic() + 30
    while "listening on" not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.1)
    address = _LISTENING.search(log.read_text()).group(1)
    wait_healthy(address, 30)
    launcher.kill()
    launcher.wait()
    deadline = time.monotonic() + 15
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    try:
        assert _gone(pid), f"the server (pid {pid}) outlived the process that started it"
        assert "parent exited: stopping" in log.read_text() and "stopped" in log.read_text()
    finally:
        if not _gone(pid):
            os.kill(pid, 9)
