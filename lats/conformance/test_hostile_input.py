"""Hostile input gets the documented error, in any language's server.

* Request bytes that do not parse as the method's request message:
  INVALID_ARGUMENT on every RPC (never UNKNOWN or INTERNAL).
* NaN or Infinity anywhere inside an inline task: INVALID_ARGUMENT (JSON has
  no such numbers); only for servers that take inline tasks.
* Long input is quoted short: a 20,000-character split or task id gets
  INVALID_ARGUMENT / NOT_FOUND with a message under MAX_MESSAGE_CHARS, not an
  echo so big that the client sees RESOURCE_EXHAUSTED instead.
"""

from __future__ import annotations

import math

import grpc
import pytest
from google.protobuf import struct_pb2
from lats_pb import environment_pb2

from lats_runtime.environment_versions import SERVICE

from lats.conformance.helpers import expect_status

METHODS = tuple(environment_pb2.DESCRIPTOR.services_by_name["Environment"].methods_by_name)
# No protobuf message parses from these: field 1 announcing 255 bytes that never
# come (truncated), and a group opened for field 1 that never closes.
UNDECODABLE = {"truncated": b"\x0a\xff\x01", "open-group": b"\x0b"}
MAX_MESSAGE_CHARS = 2_000
LONG = "x" * 20_000


@pytest.mark.parametrize("method", METHODS)
def test_undecodable_request_bytes_are_invalid_argument(channel, rpc_timeout, method):
    call = channel.unary_unary(f"/{SERVICE}/{method}")
    for name, data in UNDECODABLE.items():
        error = expect_status(grpc.StatusCode.INVALID_ARGUMENT, call, data, timeout=rpc_timeout,
                              what=f"{method} request bytes that do not decode ({name})")
        assert len(error.details()) < MAX_MESSAGE_CHARS, name


def _inline(value) -> struct_pb2.Struct:
    inline = struct_pb2.Struct()
    inline.update({"conformance": value})
    return inline


@pytest.mark.parametrize("value", [math.nan, math.inf, [1, -math.inf], {"deep": math.nan}],
                         ids=["nan", "infinity", "in-a-list", "in-a-struct"])
def test_non_finite_inline_task_is_invalid_argument(stub, describe, rpc_timeout, value):
    if not describe.capabilities.inline_tasks:
        pytest.skip("the server takes no inline tasks")
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, stub.Reset,
                  environment_pb2.ResetRequest(inline_task=_inline(value)), timeout=rpc_timeout,
                  what=f"an inline task holding {value!r}")


def test_a_long_split_is_quoted_short(stub, rpc_timeout):
    error = expect_status(grpc.StatusCode.INVALID_ARGUMENT, stub.ListTasks,
                          environment_pb2.ListTasksRequest(split=LONG), timeout=rpc_timeout)
    assert len(error.details()) < MAX_MESSAGE_CHARS, f"{len(error.details())} characters"


def test_a_long_task_id_is_quoted_short(stub, rpc_timeout):
    error = expect_status(grpc.StatusCode.NOT_FOUND, stub.Reset,
                          environment_pb2.ResetRequest(task_id=LONG), timeout=rpc_timeout)
    assert len(error.details()) < MAX_MESSAGE_CHARS, f"{len(error.details())} characters"
