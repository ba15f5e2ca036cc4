"""Hosting an `EnvironmentServicer` on a gRPC server built by `lats_runtime.serving`."""

from __future__ import annotations

from lats_pb import environment_pb2, environment_pb2_grpc

from env_servers.core.domain import Domain
from env_servers.core.servicer import EnvironmentServicer
from env_servers.core.settings import EnvSettings
from lats_runtime.serving import RunningServer, ServerOptions, ServiceSpec, serve_forever, start_server

SERVICE_NAME = environment_pb2.DESCRIPTOR.services_by_name["Environment"].full_name


def environment_service(servicer: EnvironmentServicer) -> ServiceSpec:
    """The `ServiceSpec` that registers `servicer` as lats.v1.Environment."""
    return ServiceSpec(
        full_name=SERVICE_NAME,
        register=lambda server: environment_pb2_grpc.add_EnvironmentServicer_to_server(
            servicer, server
        ),
    )


class EnvironmentServer:
    """A started environment server: `.port`, `.servicer`, `await .stop()`."""

    def __init__(self, running: RunningServer, servicer: EnvironmentServicer):
        self.running = running
        self.servicer = servicer
        self.port = running.port

    async def stop(self, grace: float | None = 1.0) -> None:
        await self.running.stop(grace)
        await self.servicer.close()


async def start_environment_server(
    servicer: EnvironmentServicer, options: ServerOptions | None = None
) -> EnvironmentServer:
    """Starts `servicer` on `options.address` (default 127.0.0.1:0)."""
    running = await start_server([environment_service(servicer)], options or ServerOptions())
    await servicer.start()
    return EnvironmentServer(running, servicer)


async def serve_environment(
    domain: Domain, settings: EnvSettings, options: ServerOptions
) -> None:
    """Serves `domain` until SIGTERM/SIGINT, then closes sessions and the domain."""
    servicer = EnvironmentServicer(domain, settings)
    await serve_forever(
        [environment_service(servicer)],
        options,
        on_started=lambda _running: servicer.start(),
        on_stopped=servicer.close,
    )
