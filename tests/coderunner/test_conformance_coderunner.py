"""The conformance kit passes against the real code-runner server process
(bubblewrap sandbox), and the server's own flags work."""

from __future__ import annotations

import subprocess
import sys

import grpc
import pytest
from lats_pb import environment_pb2, environment_pb2_grpc

from lats_runtime.processes import ServiceStartError, start_service
from tests import kit

# The grammar examples answer HumanEval/53 (add), so the kit plays real programs.
KIT_TASK = "HumanEval/53"


@pytest.fixture(scope="module")
def coderunner_replicas():
    with kit.two_replicas("env", ["env", "coderunner"], env={"LATS_CODERUNNER_SANDBOX": "bwrap"},
                          timeout=60) as replicas:
        yield replicas


@pytest.fixture(scope="module")
def coderunner_process(coderunner_replicas):
    return coderunner_replicas[0]


@pytest.mark.timeout(240)
def test_coderunner_server_passes_the_whole_kit(coderunner_replicas, tmp_path):
    results = kit.run_kit(coderunner_replicas, tmp_path / "kit.xml", KIT_TASK, timeout=30,
                          process_timeout=230)
    assert kit.skipped(results) == sorted([kit.STATES_ANSWER_KEYS, kit.STATES_NO_STATE_KEYS, *kit.WITHOUT_INLINE_TASKS_ONLY,
                                          *kit.REPLAY_ONLY])


def test_the_server_plays_a_program_through_grpc(coderunner_process):
    with grpc.insecure_channel(coderunner_process.address) as channel:
        stub = environment_pb2_grpc.EnvironmentStub(channel)
        described = stub.Describe(environment_pb2.DescribeRequest(), timeout=10)
        assert described.name == "coderunner" and described.reward_mode == environment_pb2.REWARD_MODE_NONE
        reset = stub.Reset(environment_pb2.ResetRequest(
            task_id=KIT_TASK,
            options={"internal_tests": "assert add(1, 2) == 3\nassert add(2, 2) == 4"}),
            timeout=10)
        assert reset.info["sandbox"] == "bwrap" and reset.info["sandbox_secure"] is True
        step, = stub.Step(environment_pb2.StepRequest(
            snapshot=reset.snapshot, actions=["```python\ndef add(x, y):\n    return x * y\n```"]),
            timeout=30).results
        assert step.observation == ("Tested passed:\nassert add(2, 2) == 4\n\n"
                                    "Tests failed:\nassert add(2, 3) == 5 # output: 6, expected: 5\n"
                                    "assert add(5, 7) == 12 # output: 35, expected: 12\n"
                                    "assert add(1, 2) == 3 # output: 2, expected: 3")  # the task's examples first
        assert step.reward == 0.25 and not step.terminated
        score = stub.Score(environment_pb2.ScoreRequest(snapshot=step.snapshot), timeout=30)
        assert not score.success and "bwrap" in score.details


def test_the_process_sandbox_needs_an_explicit_opt_in():
    with pytest.raises(ServiceStartError, match="allow-insecure-sandbox"):
        start_service("env", ["env", "coderunner"], env={"LATS_CODERUNNER_SANDBOX": "process"},
                      timeout=30)


def test_the_oracle_mode_is_reported_by_describe():
    service = start_service("env", ["env", "coderunner"],
                            env={"LATS_CODERUNNER_REWARD_MODE": "oracle"}, timeout=60)
    try:
        with grpc.insecure_channel(service.address) as channel:
            stub = environment_pb2_grpc.EnvironmentStub(channel)
            described = stub.Describe(environment_pb2.DescribeRequest(), timeout=10)
            assert described.reward_mode == environment_pb2.REWARD_MODE_ORACLE
    finally:
        assert service.stop() == 0


def test_the_coderunner_command_takes_its_own_flags():
    out = subprocess.run([sys.executable, "-m", "env_servers.coderunner", "--help"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    for flag in ("--sandbox [bwrap|docker|process]", "--allow-insecure-sandbox",
                 "--reward-mode [none|oracle]", "--internal-tests", "--task-file", "--port"):
        assert flag in out.stdout
    refused = subprocess.run([sys.executable, "-m", "env_servers.coderunner", "--sandbox",
                              "process"], capture_output=True, text=True, timeout=30)
    assert refused.returncode == 2 and "--allow-insecure-sandbox" in refused.stderr
