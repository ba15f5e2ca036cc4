"""Round three, finding 3: a 3 MB `internal_tests` option parsed on the server's
event loop held every other client's calls for 4-6 s. The option is now refused by
size before anything parses it, and what fits is parsed off the loop."""

from __future__ import annotations

import threading
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from lats_pb import environment_pb2, environment_pb2_grpc

from env_servers.coderunner.domain import MAX_OPTION_BYTES
from lats_runtime.processes import start_service

BIG = "assert add(1, 2) == 3\n" * (3 * 1024 * 1024 // 22)
FITS = ("assert add(1, 2) == 3\n" * (MAX_OPTION_BYTES // 22))[: MAX_OPTION_BYTES - len("internal_tests")]


@pytest.fixture(scope="module")
def server():
    process = start_service("coderunner-options", ["env", "coderunner"],
                            env={"LATS_CODERUNNER_SANDBOX": "bwrap"}, timeout=90)
    try:
        yield process.address
    finally:
        assert process.stop() == 0


def _reset(stub, tests: str):
    return stub.Reset(environment_pb2.ResetRequest(task_id="HumanEval/53",
                                                   options={"internal_tests": tests}), timeout=30)


def test_an_oversized_option_is_invalid_argument_naming_the_limit(server):
    options = [("grpc.max_send_message_length", 8 << 20)]
    with grpc.insecure_channel(server, options=options) as channel:
        stub = environment_pb2_grpc.EnvironmentStub(channel)
        assert stub.Describe(environment_pb2.DescribeRequest()).limits.max_option_bytes == MAX_OPTION_BYTES
        with pytest.raises(grpc.RpcError) as error:
            _reset(stub, BIG)
        assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert f"max_option_bytes={MAX_OPTION_BYTES}" in error.value.details()
        assert "'internal_tests'" in error.value.details()
        assert _reset(stub, FITS).task_id == "HumanEval/53"  # the largest that fits is served


def test_health_stays_prompt_while_clients_send_big_options(server):
    options = [("grpc.max_send_message_length", 8 << 20)]
    stop = threading.Event()

    def flood():
        with grpc.insecure_channel(server, options=options) as channel:
            stub = environment_pb2_grpc.EnvironmentStub(channel)
            while not stop.is_set():
                for tests in (BIG, FITS):
                    try:
                        _reset(stub, tests)
                    except grpc.RpcError:
                        pass

    senders = [threading.Thread(target=flood) for _ in range(2)]
    for sender in senders:
        sender.start()
    try:
        time.sleep(0.5)
        with grpc.insecure_channel(server) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            waits = []
            for _ in range(10):
                started = time.perf_counter()
                health.Check(health_pb2.HealthCheckRequest(), timeout=10)
                waits.append(time.perf_counter() - started)
    finally:
        stop.set()
        for sender in senders:
            sender.join()
    assert sorted(waits)[5] < 0.5, waits  # a 3 MB parse on the loop made every call wait 4-6 s


def test_task_sets_load_safely_from_many_threads_at_once():
    """Reset runs off the event loop now: concurrent first lookups load each split once
    (an unlocked load saw its own problems as another split's and failed)."""
    from concurrent.futures import ThreadPoolExecutor

    from env_servers.coderunner.tasks import TaskSet

    for _ in range(3):
        tasks = TaskSet()
        ids = ["HumanEval_23_strlen", "HumanEval/53", "Mbpp/2", "HumanEval_85_add"] * 4
        with ThreadPoolExecutor(8) as pool:
            found = list(pool.map(tasks.get, ids))
        assert [problem.task_id for problem in found] == ids
