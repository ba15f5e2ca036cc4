"""What every fuzzed call must satisfy, and the hypothesis profiles.

A call answers within its deadline with OK or a documented status (never
UNKNOWN or INTERNAL, never DEADLINE_EXCEEDED), and a status message shorter
than MAX_MESSAGE_CHARS. Streams are read for a few messages, then cancelled.

Profiles: "ci" (the default: seeded, 60 examples per RPC, LATS_FUZZ_EXAMPLES to change) and
"nightly" (thousands per RPC): LATS_FUZZ_PROFILE=nightly pytest tests/fuzz.
"""

from __future__ import annotations

import os
from pathlib import Path

import grpc
from google.protobuf.descriptor import MethodDescriptor
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, settings

MAX_MESSAGE_CHARS = 2_000
CALL_TIMEOUT = 15.0
STREAM_MESSAGES = 3
DOCUMENTED = {
    grpc.StatusCode.OK, grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.ALREADY_EXISTS, grpc.StatusCode.OUT_OF_RANGE,
}
# The planner also answers UNAVAILABLE when the environment it was sent to cannot be reached.
PLANNER_DOCUMENTED = DOCUMENTED | {grpc.StatusCode.UNAVAILABLE}

_COMMON = dict(derandomize=True, deadline=None, database=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                      HealthCheck.function_scoped_fixture])
settings.register_profile("ci", max_examples=int(os.environ.get("LATS_FUZZ_EXAMPLES", 60)),
                          **_COMMON)
settings.register_profile("nightly", max_examples=2_000, **_COMMON)
settings.load_profile(os.environ.get("LATS_FUZZ_PROFILE", "ci"))


def method_path(method: MethodDescriptor) -> str:
    return f"/{method.containing_service.full_name}/{method.name}"


def call_raw(channel: grpc.Channel, method: MethodDescriptor, data: bytes) -> grpc.StatusCode:
    """Sends `data` as the request bytes; the status (OK when it answered)."""
    path = method_path(method)
    try:
        if method.server_streaming:
            stream = channel.unary_stream(path)(data, timeout=CALL_TIMEOUT)
            _read_some(stream)
        else:
            channel.unary_unary(path)(data, timeout=CALL_TIMEOUT)
    except grpc.RpcError as error:
        return _checked(error, method, data)
    return grpc.StatusCode.OK


def call(channel: grpc.Channel, method: MethodDescriptor, request,
         documented=frozenset(DOCUMENTED)) -> grpc.StatusCode:
    """Sends `request`; asserts the answer is OK or a documented status with a short message."""
    return call_raw_checked(channel, method, request.SerializeToString(), request, documented)


def call_raw_checked(channel, method, data: bytes, shown, documented) -> grpc.StatusCode:
    code = call_raw(channel, method, data)
    assert code in documented, f"{method.name}: {code.name} is not documented, for {shown!r:.400}"
    return code


def _read_some(stream) -> None:
    for count, _ in enumerate(stream, 1):
        if count >= STREAM_MESSAGES:
            stream.cancel()
            return


def _checked(error: grpc.RpcError, method: MethodDescriptor, shown) -> grpc.StatusCode:
    code = error.code()
    details = error.details() or ""
    if code == grpc.StatusCode.CANCELLED and "Locally cancelled" in details:
        return grpc.StatusCode.OK          # we cancelled a stream that was answering
    assert code not in (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL), (
        f"{method.name}: {code.name} {details[:400]!r} for {shown!r:.400}")
    assert code != grpc.StatusCode.DEADLINE_EXCEEDED, (
        f"{method.name}: no answer within {CALL_TIMEOUT:g}s for {shown!r:.400}")
    assert len(details) < MAX_MESSAGE_CHARS, (
        f"{method.name}: a {len(details)}-character status message ({code.name}) for "
        f"{shown!r:.200}")
    assert details, f"{method.name}: {code.name} without a message saying what to fix"
    return code


def assert_serving(channel: grpc.Channel) -> None:
    reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING


def rss_bytes(pid: int) -> int:
    """Resident memory of process `pid` and its children (the process and any workers);
    a child that exits while it is read counts for nothing."""
    total = 0
    for status in _process_tree(pid):
        for line in _read(status).splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1]) * 1024
    return total


def _read(path: str) -> str:
    """The text of a /proc file, or "" if its process is gone (it may exit at any time)."""
    try:
        return Path(path).read_text()
    except (FileNotFoundError, ProcessLookupError):
        return ""


def _process_tree(pid: int) -> list[str]:
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        status = f"/proc/{current}/status"
        if not Path(status).exists():
            continue
        found.append(status)
        queue.extend(int(child) for child in
                     _read(f"/proc/{current}/task/{current}/children").split())
    return found
