"""An environment written on bare grpcio from the proto alone passes the kit and is searched.

`word_ladder_server.py` imports nothing of the project but the generated stubs.
Two replicas of it pass the whole conformance kit (its snapshots are replays,
so the blob checks are the only ones skipped), and `lats solve` searches it,
unchanged, through a scripted gateway and a planner.
"""

from __future__ import annotations

import ast
import contextlib
import json
import subprocess
import sys
import threading
from collections import deque
from pathlib import Path

import pytest

from lats_runtime.processes import _LISTENING, ServiceProcess, running_services, wait_healthy
from tests import kit

SERVER = Path(__file__).with_name("word_ladder_server.py")
TASK = "ladder/cold-warm"
SOLUTION = ["cord", "card", "ward", "warm"]
# Third-party packages a grpcio server needs; of the project, only the generated stubs.
ALLOWED_TOP_LEVEL = {"grpc", "grpc_health", "grpc_reflection", "google", "lats_pb"}
SCRIPT = {"rules": [
    {"purpose": "value", "responses": ["7"]},
    {"purpose": "reflect", "responses": ["Change one letter toward the target each step."]},
    {"contains": ["Step 3: ward\n"], "responses": ["warm"]},
    {"contains": ["Step 2: card\n"], "responses": ["ward"]},
    {"contains": ["Step 1: cord\n"], "responses": ["card"]},
    {"responses": ["cord", "bold"]},
]}


def test_the_server_imports_nothing_of_the_project_but_the_stubs():
    imported = set()
    for node in ast.walk(ast.parse(SERVER.read_text())):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            imported.add(node.module.split(".")[0])
    outside = imported - set(sys.stdlib_module_names) - ALLOWED_TOP_LEVEL
    assert not outside, f"the bare server imports {sorted(outside)}"
    assert "lats_pb" in imported


def start_bare_server(name: str, timeout: float = 30.0) -> ServiceProcess:
    """`python word_ladder_server.py --port 0`, waited on until it is healthy."""
    process = subprocess.Popen([sys.executable, str(SERVER), "--port", "0"],
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
    threading.Thread(target=lambda: output.extend(process.stdout), daemon=True).start()
    service = ServiceProcess(name, process, match.group(1), output)
    wait_healthy(service.address, timeout)
    return service


@contextlib.contextmanager
def bare_servers(count: int):
    servers = []
    try:
        for index in range(count):
            servers.append(start_bare_server(f"ladder-{index}"))
        yield servers
    finally:
        codes = [server.stop() for server in reversed(servers)]
    assert codes == [0] * count, f"a server did not stop cleanly: {codes}"


@pytest.mark.timeout(240)
def test_the_kit_passes_on_two_replicas(tmp_path):
    with bare_servers(2) as replicas:
        results = kit.run_kit(replicas, tmp_path / "kit.xml", task_id=TASK)
    assert kit.skipped(results) == sorted([
        *kit.BLOB_ONLY, "test_inline_task_without_capability_is_failed_precondition",
        kit.STATES_NO_ANSWER_KEYS, kit.STATES_NO_STATE_KEYS])
    for must_run in ("test_the_other_kind_of_snapshot_is_invalid_argument",
                     "test_keys_only_from_servers_that_state_them[answer_key]",
                     "test_undecodable_request_bytes_are_invalid_argument[Reset]",
                     "test_non_finite_inline_task_is_invalid_argument[nan]",
                     "test_a_retired_version_is_told_which_version_this_is[Reset-lats.v1.Environment]"):
        assert results[must_run] == "passed", must_run


@pytest.mark.timeout(240)
def test_lats_solve_searches_it_with_a_scripted_model(tmp_path):
    script = tmp_path / "ladder.json"
    script.write_text(json.dumps(SCRIPT))
    specs = [("gateway", ["gateway", "--backend", "scripted", "--script", str(script)]),
             ("planner", ["planner", "--gateway", "{gateway}",
                          "--db", str(tmp_path / "runs.sqlite3")])]
    with bare_servers(1) as (env,), running_services(specs) as running:
        out = subprocess.run(
            [sys.executable, "-m", "lats", "solve", "--planner", running["planner"].address,
             "--env", env.address, "--task", TASK, "-n", "2", "-k", "8", "-d", "6"],
            capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    assert "== SOLVED" in out.stdout, out.stdout[-4000:]
    assert "verified by the environment: score 1" in out.stdout, out.stdout[-4000:]
    for word in SOLUTION:
        assert word in out.stdout
