"""Standard gRPC services (health checking, server reflection), and the retired version.

A call to the retired lats.v1.Environment is FAILED_PRECONDITION naming the
version this server speaks, so an old client learns what to upgrade to.
"""

from __future__ import annotations

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from lats_runtime.environment_versions import PROTOCOL, RETIRED_SERVICES, SERVICE

from lats.conformance.helpers import expect_status


def test_health_is_serving(channel, rpc_timeout):
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", SERVICE):
        reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=rpc_timeout)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING, (
            f"health of {service or 'the server'!r} is {reply.status}"
        )


def test_reflection_lists_the_environment(channel, rpc_timeout):
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    replies = list(stub.ServerReflectionInfo(iter([request]), timeout=rpc_timeout))
    names = {s.name for r in replies for s in r.list_services_response.service}
    assert SERVICE in names, f"reflection lists only {sorted(names)}"


@pytest.mark.parametrize("service", RETIRED_SERVICES)
@pytest.mark.parametrize("method", ["Describe", "Reset", "Step", "Snapshot"])
def test_a_retired_version_is_told_which_version_this_is(channel, rpc_timeout, service, method):
    call = channel.unary_unary(f"/{service}/{method}")
    error = expect_status(grpc.StatusCode.FAILED_PRECONDITION, call, b"", timeout=rpc_timeout,
                          what=f"a call to the retired {service}/{method}")
    assert PROTOCOL in error.details(), (
        f"the refusal must name the version this server speaks ({PROTOCOL}), so the client "
        f"knows what to upgrade to; it said {error.details()!r:.300}")
