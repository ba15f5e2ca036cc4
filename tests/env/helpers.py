"""Environment test helpers: real servers on loopback ports, with aio stubs."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import grpc
from lats_pb import environment_pb2, environment_pb2_grpc

from env_servers.core import (
    Domain,
    EnvironmentServer,
    EnvironmentServicer,
    EnvSettings,
    start_environment_server,
)

BIG_MESSAGES = [("grpc.max_send_message_length", 16 * 1024 * 1024)]


@dataclass
class Served:
    server: EnvironmentServer
    stub: environment_pb2_grpc.EnvironmentStub
    address: str

    async def reset(self, task_id: str) -> environment_pb2.ResetResponse:
        return await self.stub.Reset(environment_pb2.ResetRequest(task_id=task_id))

    async def step(self, session_id: str, action: str) -> environment_pb2.StepResponse:
        request = environment_pb2.StepRequest(session_id=session_id, action=action)
        return await self.stub.Step(request)

    async def snapshot(self, session_id: str) -> bytes:
        reply = await self.stub.Snapshot(environment_pb2.SnapshotRequest(session_id=session_id))
        return reply.blob

    async def restore(self, blob: bytes) -> environment_pb2.RestoreResponse:
        return await self.stub.Restore(environment_pb2.RestoreRequest(blob=blob))


@contextlib.asynccontextmanager
async def serving(domain: Domain, servicer_class=EnvironmentServicer, **settings):
    """A real server for `domain` on 127.0.0.1:<free port>, stopped on exit."""
    servicer = servicer_class(domain, EnvSettings(**settings))
    server = await start_environment_server(servicer)
    address = f"127.0.0.1:{server.port}"
    channel = grpc.aio.insecure_channel(address, options=BIG_MESSAGES)
    try:
        yield Served(server, environment_pb2_grpc.EnvironmentStub(channel), address)
    finally:
        await channel.close()
        await server.stop(0)


async def status_of(call) -> grpc.aio.AioRpcError:
    """Awaits `call`, which must fail; returns the error."""
    try:
        result = await call
    except grpc.aio.AioRpcError as error:
        return error
    raise AssertionError(f"the call succeeded: {result!r:.200}")
