"""`lats serve env`: settings from flags or environment variables, clean SIGTERM shutdown."""

from __future__ import annotations

import subprocess
import sys
import time

import grpc
import pytest
from lats_pb import environment_pb2, environment_pb2_grpc

from lats_runtime.addresses import listen_address
from env_servers.registry import load_domain
from lats_runtime.processes import start_service


@pytest.mark.timeout(60)
def test_serve_env_takes_env_vars_and_stops_cleanly_on_sigterm():
    service = start_service(
        "env", ["env", "game24"], timeout=30,
        env={"LATS_MAX_BATCH_ACTIONS": "7", "LATS_SNAPSHOT_KEY": "k"},
    )
    try:
        with grpc.insecure_channel(service.address) as channel:
            stub = environment_pb2_grpc.EnvironmentStub(channel)
            limits = stub.Describe(environment_pb2.DescribeRequest(), timeout=5).limits
            assert limits.max_batch_actions == 7
            stub.Reset(environment_pb2.ResetRequest(task_id="game24/900"), timeout=5)
    finally:
        started = time.monotonic()
        code = service.stop(timeout=10)
    assert code == 0, service.log_tail()
    assert time.monotonic() - started < 5
    assert "no snapshot key configured" not in service.log_tail()


@pytest.mark.timeout(60)
def test_domain_flags_win_over_their_variables(tmp_path):
    by_flag, by_variable = tmp_path / "flag.csv", tmp_path / "variable.csv"
    by_flag.write_text("Rank,Puzzles\n1,1 2 3 4\n2,4 4 6 8\n")
    by_variable.write_text("Rank,Puzzles\n1,1 2 3 4\n2,4 4 6 8\n3,1 1 4 6\n")
    counts = []
    for args in ([], ["--data", str(by_flag)]):
        service = start_service("env", ["env", "game24", *args], timeout=30,
                                env={"LATS_GAME24_DATA": str(by_variable)})
        try:
            with grpc.insecure_channel(service.address) as channel:
                stub = environment_pb2_grpc.EnvironmentStub(channel)
                listed = stub.ListTasks(environment_pb2.ListTasksRequest(split="all"), timeout=5)
                counts.append(len(listed.task_ids))
        finally:
            service.stop(timeout=10)
    assert counts == [3, 2]


def test_python_m_env_servers_coderunner_is_the_same_command():
    run = subprocess.run([sys.executable, "-m", "env_servers.coderunner", "--help"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "LATS_CODERUNNER_SANDBOX" in run.stdout
    assert "--task-file" in run.stdout and "--snapshot-key" in run.stdout


def test_unknown_environment_is_a_usage_error():
    run = subprocess.run([sys.executable, "-m", "lats", "serve", "env", "chess"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "game24" in run.stderr


def test_registry_and_addresses():
    assert load_domain("game24").name == "game24"
    with pytest.raises(KeyError, match=r"known: .*game24"):
        load_domain("chess")
    assert listen_address("::1", 5) == "[::1]:5"
    assert listen_address("127.0.0.1", 0) == "127.0.0.1:0"
