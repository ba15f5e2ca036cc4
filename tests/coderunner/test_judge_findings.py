"""The second round's findings, through the code-runner server's public protocol (real gRPC servers).

Each was first shown against a running server: a lone surrogate in a
program's exception made Step answer INTERNAL; HumanEval/32's docstring
example lost its expected value to a comment, so `return 12345.0` got reward
1.0; a program redefining HumanEval/38's helper passed Score while a right one
that left the helper out failed; a 1,500-deep tree broke the process backend's
worker for every later Step. Here each must come back as a plain answer.
"""

from __future__ import annotations

import grpc
import pytest
from lats_pb import environment_pb2, environment_pb2_grpc

from lats_runtime.processes import start_service


@pytest.fixture(scope="module", params=["bwrap", "process"])
def server(request):
    env = {"LATS_CODERUNNER_SANDBOX": request.param, "LATS_CODERUNNER_ALLOW_INSECURE_SANDBOX": "1"}
    process = start_service(f"coderunner-{request.param}", ["env", "coderunner"], env=env, timeout=90)
    try:
        with grpc.insecure_channel(process.address) as channel:
            yield environment_pb2_grpc.EnvironmentStub(channel)
    finally:
        assert process.stop() == 0


def play(stub, task_id: str, program: str, internal_tests: str | None = None):
    options = {"internal_tests": internal_tests} if internal_tests is not None else {}
    reset = stub.Reset(environment_pb2.ResetRequest(task_id=task_id, options=options), timeout=30)
    step, = stub.Step(environment_pb2.StepRequest(snapshot=reset.snapshot, actions=[program]),
                      timeout=60).results
    score = stub.Score(environment_pb2.ScoreRequest(snapshot=step.snapshot), timeout=60)
    return step, score


def test_a_lone_surrogate_in_an_exception_reads_as_text_not_internal(server):
    program = "def add(x, y):\n    raise ValueError('bad \\udc80 value')\n"
    step, score = play(server, "HumanEval/53", program)
    assert "bad \\udc80 value" in step.observation and step.reward == 0.0
    assert not score.success


def test_an_example_whose_call_carries_a_comment_keeps_its_expected_value(server):
    """HumanEval/32: `>>> round(find_zero([1, 2]), 2) # f(x) = 1 + 2x` is followed by `-0.5`."""
    wrong = "def find_zero(xs: list):\n    return 12345.0\n"
    step, _ = play(server, "HumanEval/32", wrong)
    assert step.reward == 0.0 and "== -0.5" in step.observation


CYCLIC = '''
def decode_cyclic(s: str):
    return encode_cyclic(encode_cyclic(s))
'''
REDEFINES_THE_HELPER = '''
def encode_cyclic(s: str):
    return s

def decode_cyclic(s: str):
    return s
'''


def test_score_uses_the_tasks_own_helpers(server):
    """HumanEval/38: the right program may leave the helper out; a wrong one cannot replace it."""
    _, right = play(server, "HumanEval/38", CYCLIC)
    assert right.success, right.details
    _, wrong = play(server, "HumanEval/38", REDEFINES_THE_HELPER)
    assert not wrong.success, wrong.details


def test_mbpp_tests_see_the_imports_their_reference_made(server):
    """Mbpp/596's tests use `sys`, which only its reference code imports."""
    program = "def tuple_size(tuple_list):\n    import sys\n    return sys.getsizeof(tuple_list)\n"
    _, score = play(server, "Mbpp/596", program)
    assert score.success, score.details


def test_a_tree_too_deep_to_recurse_into_leaves_the_next_steps_working(server):
    deep = (
        "import os\n"
        "fd = os.open('.', os.O_RDONLY)\n"
        "for _ in range(1500):\n"
        "    os.mkdir('d', dir_fd=fd)\n"
        "    inner = os.open('d', os.O_RDONLY, dir_fd=fd)\n"
        "    os.close(fd)\n"
        "    fd = inner\n"
        "def add(x, y):\n    return x + y\n"
    )
    first, _ = play(server, "HumanEval/53", deep)
    assert first.reward == 1.0, first.observation
    for _ in range(3):
        step, score = play(server, "HumanEval/53", "def add(x, y):\n    return x + y\n")
        assert step.reward == 1.0 and score.success, step.observation


def test_a_model_written_test_cannot_touch_another_sessions_verdict(server):
    """The model's tests run apart from the judge: a forged reply cannot reach the next session's Score."""
    forging = (
        "import os, struct, json\n"
        "body = json.dumps({'records': [], 'nonce': 'forged'}).encode()\n"
        "for fd in range(3, 64):\n"
        "    try:\n"
        "        os.write(fd, struct.pack('>I', len(body)) + body)\n"
        "    except OSError:\n"
        "        pass\n"
    )
    forger = f"assert add(1, 2) == 3 and exec({forging!r}) is None"  # an assert may run any code
    step, _ = play(server, "HumanEval/53", "def add(x, y):\n    return x + y\n",
                   internal_tests=f"```python\n{forger}\n```")
    assert "exec(" in step.observation  # the forging test was one of the Step's tests
    for _ in range(3):
        _, score = play(server, "HumanEval/53", "def add(x, y):\n    return x + y\n")
        assert score.success, score.details
