"""pytest plugin of the conformance kit: options and fixtures.

Options:  --env-addr HOST:PORT (required), --env-addr-2 HOST:PORT (a second
          replica sharing the snapshot key; `lats conformance --replica`),
          --env-task-id ID, --env-timeout S.
Fixtures: env_addr, channel, stub, second_stub, describe, limits, task_id,
          episodes, second_episodes, first_snapshot, snapshot_kind,
          probe_actions, rpc_timeout, needs_blobs, needs_score.
"""

from __future__ import annotations

import grpc
import pytest

pytest.register_assert_rewrite("lats.conformance.helpers")

from lats_pb import environment_pb2, environment_pb2_grpc  # noqa: E402
from lats_runtime import environment_versions  # noqa: E402

from lats.conformance.helpers import (  # noqa: E402
    PROTOCOL_MAX_MESSAGE_BYTES,
    Episodes,
    garbage_actions,
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("lats-conformance", "LATS environment conformance kit")
    group.addoption("--env-addr", default="", metavar="HOST:PORT",
                    help=f"address of the {environment_versions.SERVICE} server to check")
    group.addoption("--env-addr-2", default="", metavar="HOST:PORT",
                    help="a second replica of the same server, sharing its snapshot key: "
                         "checks that both answer identically (skipped without it; "
                         "`lats conformance --replica`)")
    group.addoption("--env-task-id", default="", metavar="ID",
                    help="task to play (default: the first task of the default split); "
                         "pick one the grammar examples apply to, in order, for deeper checks")
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


def _described(channel: grpc.Channel, address: str, timeout: float):
    """Describe; a server without this protocol version's service ends the run,
    saying which version it speaks."""
    stub = environment_pb2_grpc.EnvironmentStub(channel)
    try:
        return stub.Describe(environment_pb2.DescribeRequest(), timeout=timeout)
    except grpc.RpcError as error:
        if error.code() != grpc.StatusCode.UNIMPLEMENTED:
            raise
        answered = None
        for service in environment_versions.RETIRED_SERVICES:
            try:
                channel.unary_unary(f"/{service}/Describe")(b"", timeout=timeout)
            except grpc.RpcError:
                continue
            answered = service
            break
        pytest.exit(environment_versions.missing_service_message(address, answered,
                                                                 error.details() or ""),
                    pytest.ExitCode.USAGE_ERROR)


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
    _described(channel, address, rpc_timeout)
    yield environment_pb2_grpc.EnvironmentStub(channel)
    channel.close()


@pytest.fixture(scope="session")
def stub(channel) -> environment_pb2_grpc.EnvironmentStub:
    return environment_pb2_grpc.EnvironmentStub(channel)


@pytest.fixture(scope="session")
def describe(channel, env_addr: str, rpc_timeout: float) -> environment_pb2.DescribeResponse:
    return _described(channel, env_addr, rpc_timeout)


@pytest.fixture(scope="session")
def limits(describe) -> environment_pb2.Limits:
    return describe.limits


@pytest.fixture(scope="session")
def task_id(pytestconfig: pytest.Config, stub, describe, rpc_timeout: float) -> str:
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


@pytest.fixture(scope="session")
def episodes(stub, rpc_timeout: float) -> Episodes:
    return Episodes(stub, rpc_timeout)


@pytest.fixture(scope="session")
def second_episodes(second_stub, rpc_timeout: float) -> Episodes:
    return Episodes(second_stub, rpc_timeout)


@pytest.fixture(scope="session")
def first_snapshot(episodes, task_id) -> environment_pb2.Snapshot:
    """The snapshot Reset gives for the kit's task."""
    snapshot = episodes.reset(task_id).snapshot
    if snapshot.WhichOneof("kind") is None:
        pytest.fail("Reset returned no snapshot: set ResetResponse.snapshot to a blob or "
                    "a replay")
    return snapshot


@pytest.fixture(scope="session")
def snapshot_kind(first_snapshot) -> str:
    """"blob" or "replay": the kind of snapshot this server makes."""
    return first_snapshot.WhichOneof("kind")


@pytest.fixture
def needs_blobs(snapshot_kind) -> None:
    if snapshot_kind != "blob":
        pytest.skip("the server's snapshots are replays; blob checks do not apply")


@pytest.fixture
def needs_score(describe) -> None:
    if not describe.capabilities.score:
        pytest.skip("the server does not support Score (capabilities.score)")
