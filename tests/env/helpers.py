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
    """A served environment and its aio stub, with the calls tests make most."""

    server: EnvironmentServer
    stub: environment_pb2_grpc.EnvironmentStub
    address: str

    async def reset(self, task_id: str = "", **fields) -> environment_pb2.ResetResponse:
        if task_id:
            fields["task_id"] = task_id
        return await self.stub.Reset(environment_pb2.ResetRequest(**fields))

    async def step(self, snapshot: environment_pb2.Snapshot,
                   *actions: str) -> list[environment_pb2.StepResult]:
        request = environment_pb2.StepRequest(snapshot=snapshot, actions=list(actions))
        return list((await self.stub.Step(request)).results)

    async def step_one(self, snapshot: environment_pb2.Snapshot,
                       action: str) -> environment_pb2.StepResult:
        result, = await self.step(snapshot, action)
        return result

    async def play(self, snapshot: environment_pb2.Snapshot,
                   actions) -> list[environment_pb2.StepResult]:
        """Each action from the snapshot the previous one gave, in order."""
        results = []
        for action in actions:
            results.append(await self.step_one(snapshot, action))
            snapshot = results[-1].snapshot
        return results

    async def score(self, snapshot: environment_pb2.Snapshot) -> environment_pb2.ScoreResponse:
        return await self.stub.Score(environment_pb2.ScoreRequest(snapshot=snapshot))

    async def start(self, task_id: str = "", **fields) -> Episode:
        """A new episode, played on from its latest snapshot (see `Episode`)."""
        reset = await self.reset(task_id, **fields)
        return Episode(self, reset.snapshot, reset)


@dataclass
class Episode:
    """An episode played on the client side: each step continues from the latest
    snapshot; `fork()` branches a copy at the current point."""

    served: Served
    snapshot: environment_pb2.Snapshot
    reset: environment_pb2.ResetResponse | None = None

    async def step(self, action: str) -> environment_pb2.StepResult:
        result = await self.served.step_one(self.snapshot, action)
        self.snapshot = result.snapshot
        return result

    def fork(self) -> Episode:
        return Episode(self.served, self.snapshot)

    async def score(self) -> environment_pb2.ScoreResponse:
        return await self.served.score(self.snapshot)


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
