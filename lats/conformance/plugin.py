"""pytest plugin of the conformance kit: options and fixtures.

Options:  --env-addr HOST:PORT (required), --env-addr-2 HOST:PORT (a second
          replica sharing the snapshot key; optional), --env-task-id ID,
          --env-timeout S.
Fixtures: env_addr, channel, stub, second_stub, describe, limits, task_id,
          sessions, probe_actions, rpc_timeout.
"""

from __future__ import annotations

import grpc
import pytest

pytest.register_assert_rewrite("lats.conformance.helpers")

from lats_pb import environment_pb2, environment_pb2_grpc  # noqa: E402

from lats.conformance.helpers import PROTOCOL_MAX_MESSAGE_BYTES, Sessions, garbage_actions  # noqa: E402


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("lats-conformance", "LATS environment conformance kit")
    group.addoption("--env-addr", default="", metavar="HOST:PORT",
                    help="address of the lats.v1.Environment server to check")
    group.addoption("--env-addr-2", default="", metavar="HOST:PORT",
                    help="a second replica of the same server, sharing its snapshot key: "
                         "checks that both answer identically (skipped without it)")
    group.addoption("--env-task-id", default="", metavar="ID",
                    help="task to play (default: the first task of the default split); "
                         "pick one the grammar examples apply to for deeper checks")
    group.addoption("--env-timeout", type=float, default=10.0, metavar="SECONDS",
                    help="deadline of each call (default 10)")


@pytest.fixture(scope="session")
def env_addr(pytestconfig: pytest.Config) -> str:
    address = pytestconfig.getoption("--env-addr")
    if not address:
        pytest.exit("the conformance kit needs --env-addr HOST:PORT", pytest.ExitCode.USAGE_ERROR)
    return address


@pytest.fixture(scope="session")
def rpc_timeout(pytestconfig: pytest.Config) -> float:
    return pytestconfig.getoption("--env-timeout")


def _ready_channel(address: str, timeout: float) -> grpc.Channel:
    options = [
        ("grpc.max_send_message_length", 2 * PROTOCOL_MAX_MESSAGE_BYTES),
        ("grpc.max_receive_message_length", 2 * PROTOCOL_MAX_MESSAGE_BYTES),
    ]
    channel = grpc.insecure_channel(address, options=options)
    try:
        grpc.channel_ready_future(channel).result(timeout=timeout)
    except grpc.FutureTimeoutError:
        channel.close()
        pytest.exit(f"no gRPC server answered at {address} within {timeout:g}s",
                    pytest.ExitCode.USAGE_ERROR)
    return channel


@pytest.fixture(scope="session")
def channel(env_addr: str, rpc_timeout: float):
    channel = _ready_channel(env_addr, rpc_timeout)
    yield channel
    channel.close()


@pytest.fixture(scope="session")
def second_stub(pytestconfig: pytest.Config, rpc_timeout: float):
    """A stub for the second replica (--env-addr-2); skips the test without one."""
    address = pytestconfig.getoption("--env-addr-2")
    if not address:
        pytest.skip("no second replica given: run `lats conformance HOST:PORT --replica "
                    "HOST2:PORT2` (pytest option --env-addr-2) with a replica sharing the key")
    channel = _ready_channel(address, rpc_timeout)
    yield environment_pb2_grpc.EnvironmentStub(channel)
    channel.close()


@pytest.fixture(scope="session")
def stub(channel) -> environment_pb2_grpc.EnvironmentStub:
    return environment_pb2_grpc.EnvironmentStub(channel)


@pytest.fixture(scope="session")
def describe(stub, rpc_timeout: float) -> environment_pb2.DescribeResponse:
    return stub.Describe(environment_pb2.DescribeRequest(), timeout=rpc_timeout)


@pytest.fixture(scope="session")
def limits(describe) -> environment_pb2.Limits:
    return describe.limits


@pytest.fixture(scope="session")
def task_id(pytestconfig: pytest.Config, stub, rpc_timeout: float) -> str:
    chosen = pytestconfig.getoption("--env-task-id")
    if chosen:
        return chosen
    listed = stub.ListTasks(environment_pb2.ListTasksRequest(page_size=1), timeout=rpc_timeout)
    if not listed.task_ids:
        pytest.fail("ListTasks of the default split returned no task ids")
    return listed.task_ids[0]


@pytest.fixture(scope="session")
def probe_actions(describe) -> list[str]:
    """Grammar examples (in order) then garbage: a fixed, domain-agnostic script."""
    return [*describe.action_grammar.examples, *garbage_actions(3)]


@pytest.fixture
def sessions(stub, rpc_timeout: float):
    tracker = Sessions(stub, rpc_timeout)
    yield tracker
    tracker.close_all()


@pytest.fixture
def needs_snapshot(describe) -> None:
    if not describe.capabilities.snapshot:
        pytest.skip("the server does not support Snapshot/Restore (capabilities.snapshot)")


@pytest.fixture
def needs_score(describe) -> None:
    if not describe.capabilities.score:
        pytest.skip("the server does not support Score (capabilities.score)")
