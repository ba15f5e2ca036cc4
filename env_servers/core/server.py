"""Hosting an `EnvironmentServicer` on a gRPC server built by `lats_runtime.serving`."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import logging

from lats_pb import environment_pb2, environment_pb2_grpc

from env_servers.core.domain import Domain
from env_servers.core.servicer import EnvironmentServicer
from env_servers.core.settings import EnvSettings
from lats_runtime.serving import RunningServer, ServerOptions, ServiceSpec, serve_forever, start_server

log = logging.getLogger(__name__)

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


async def wait_until_ready(domain: Domain) -> None:
    """Returns when `domain.ready()` does (a blocking one runs in a worker thread)."""
    if inspect.iscoroutinefunction(domain.ready):
        await domain.ready()
    else:
        await asyncio.to_thread(domain.ready)


async def report_readiness(domain: Domain, running: RunningServer) -> None:
    """NOT_SERVING on the health service until the domain is ready, then SERVING.

    A domain that fails to get ready stays NOT_SERVING (its calls report the
    failure), so a readiness probe keeps traffic away from it.
    """
    try:
        await wait_until_ready(domain)
    except Exception:
        log.exception("environment %s did not get ready; health stays NOT_SERVING", domain.name)
        return
    await running.set_serving(True)
    log.info("environment %s is ready", domain.name)


async def serve_environment(
    domain: Domain, settings: EnvSettings, options: ServerOptions
) -> None:
    """Serves `domain` until SIGTERM/SIGINT, then closes sessions and the domain.

    The server listens at once; health reports SERVING once the domain is ready.
    """
    servicer = EnvironmentServicer(domain, settings)
    readiness: list[asyncio.Task] = []
    options = dataclasses.replace(options, serving_at_start=False)

    async def started(running: RunningServer) -> None:
        await servicer.start()
        readiness.append(asyncio.create_task(report_readiness(domain, running)))

    async def stopped() -> None:
        for task in readiness:
            task.cancel()
        await servicer.close()

    await serve_forever([environment_service(servicer)], options,
                        on_started=started, on_stopped=stopped)
