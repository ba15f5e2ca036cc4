"""Standard gRPC services: health checking and server reflection."""

from __future__ import annotations

from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

ENVIRONMENT_SERVICE = "lats.v1.Environment"


def test_health_is_serving(channel, rpc_timeout):
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", ENVIRONMENT_SERVICE):
        reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=rpc_timeout)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING, (
            f"health of {service or 'the server'!r} is {reply.status}"
        )


def test_reflection_lists_the_environment(channel, rpc_timeout):
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    replies = list(stub.ServerReflectionInfo(iter([request]), timeout=rpc_timeout))
    names = {s.name for r in replies for s in r.list_services_response.service}
    assert ENVIRONMENT_SERVICE in names, f"reflection lists only {sorted(names)}"
