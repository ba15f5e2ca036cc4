"""ListTasks paging and Reset."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf import struct_pb2
from lats_pb import environment_pb2

from lats.conformance.helpers import PROTOCOL_MAX_MESSAGE_BYTES, expect_status


def _list_all(stub, timeout, split="", page_size=7):
    ids, token, pages = [], "", 0
    while True:
        reply = stub.ListTasks(
            environment_pb2.ListTasksRequest(split=split, page_size=page_size, page_token=token),
            timeout=timeout,
        )
        assert len(reply.task_ids) <= page_size, "a page is larger than page_size"
        ids.extend(reply.task_ids)
        pages += 1
        token = reply.next_page_token
        if not token:
            return ids, reply.total
        assert reply.task_ids, "a page with a next_page_token must not be empty"
        assert pages < 10_000, "paging does not end"


def test_paging_covers_every_id_once(stub, rpc_timeout):
    ids, total = _list_all(stub, rpc_timeout)
    assert ids, "the default split has no tasks"
    assert len(ids) == len(set(ids)), "paging repeated task ids"
    assert len(ids) == total, f"pages held {len(ids)} ids but total says {total}"


def test_default_page_size_is_100(stub, rpc_timeout):
    reply = stub.ListTasks(environment_pb2.ListTasksRequest(), timeout=rpc_timeout)
    assert len(reply.task_ids) == min(reply.total, 100)


def test_page_size_is_capped_at_1000(stub, rpc_timeout):
    try:
        reply = stub.ListTasks(environment_pb2.ListTasksRequest(page_size=100_000),
                               timeout=rpc_timeout)
    except grpc.RpcError as error:
        pytest.fail(f"ListTasks with page_size=100000 failed ({error.code().name}: "
                    f"{error.details()}); a page_size above 1000 is clamped to 1000, not refused")
    assert len(reply.task_ids) == min(reply.total, 1000), (
        f"page_size=100000 gave {len(reply.task_ids)} of {reply.total} ids; a page_size above "
        "1000 is clamped to 1000")


def test_every_described_split_lists(stub, describe, rpc_timeout):
    for split in describe.splits:
        reply = stub.ListTasks(
            environment_pb2.ListTasksRequest(split=split, page_size=5), timeout=rpc_timeout
        )
        assert len(reply.task_ids) == min(reply.total, 5), f"split {split!r}"


@pytest.mark.parametrize("token", ["not-a-page-token", "%%%", "eyJ4IjogMX0", "0" * 64])
def test_bad_page_token_is_invalid_argument(stub, rpc_timeout, token):
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, stub.ListTasks,
                  environment_pb2.ListTasksRequest(page_token=token), timeout=rpc_timeout)


def test_reset_by_listed_task(episodes, task_id):
    first = episodes.reset(task_id)
    second = episodes.reset(task_id)
    assert first.observation.strip(), "Reset gave an empty first observation"
    assert first.task_id == task_id, f"Reset ran {first.task_id!r}, not {task_id!r}"
    assert first.snapshot.WhichOneof("kind"), "Reset must return the first state's snapshot"
    assert first.observation == second.observation, "the same task starts differently"


def test_unknown_task_is_not_found(stub, rpc_timeout):
    expect_status(grpc.StatusCode.NOT_FOUND, stub.Reset,
                  environment_pb2.ResetRequest(task_id="conformance/no-such-task-7f3a9c"),
                  timeout=rpc_timeout)


def test_reset_without_task_is_invalid_argument(stub, rpc_timeout):
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, stub.Reset,
                  environment_pb2.ResetRequest(), timeout=rpc_timeout)


def test_inline_task_without_capability_is_failed_precondition(stub, describe, rpc_timeout):
    if describe.capabilities.inline_tasks:
        pytest.skip("the server accepts inline tasks (their format is domain knowledge)")
    inline = struct_pb2.Struct()
    inline.update({"conformance": True})
    expect_status(grpc.StatusCode.FAILED_PRECONDITION, stub.Reset,
                  environment_pb2.ResetRequest(inline_task=inline), timeout=rpc_timeout)


def test_options_over_max_option_bytes_are_invalid_argument(stub, limits, task_id, rpc_timeout):
    """Declared limits.max_option_bytes: Reset refuses options larger in all, by size,
    naming the limit (an unknown option is refused too, so the message tells them apart)."""
    limit = limits.max_option_bytes
    if not limit:
        pytest.skip("the server declares no limits.max_option_bytes")
    if limit + 1 > PROTOCOL_MAX_MESSAGE_BYTES - 1024:
        pytest.skip("max_option_bytes is beyond what one request may carry")
    key = "conformance"
    request = environment_pb2.ResetRequest(task_id=task_id,
                                           options={key: "~" * (limit + 1 - len(key))})
    error = expect_status(grpc.StatusCode.INVALID_ARGUMENT, stub.Reset, request,
                          timeout=rpc_timeout, what="options of max_option_bytes + 1 bytes")
    assert "max_option_bytes" in error.details(), (
        f"options over the limit must be refused naming limits.max_option_bytes, got: "
        f"{error.details()}")
