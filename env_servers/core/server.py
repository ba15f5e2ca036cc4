"""Hosting an `EnvironmentServicer` on a gRPC server built by `lats_runtime.serving`.

Beside lats.environment.v2.Environment, the server answers every call to a
retired protocol version (lats.v1.Environment) with FAILED_PRECONDITION naming
the version it speaks (`lats_runtime.environment_versions`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import logging

import grpc
from lats_pb import environment_pb2_grpc
from lats_runtime import environment_versions

from env_servers.core.domain import Domain
from env_servers.core.servicer import EnvironmentServicer
from env_servers.core.settings import EnvSettings
from lats_runtime.readiness import watch_readiness
from lats_runtime.serving import RunningServer, ServerOptions, ServiceSpec, serve_forever, start_server

log = logging.getLogger(__name__)

SERVICE_NAME = environment_versions.SERVICE


class RetiredVersions(grpc.GenericRpcHandler):
    """Answers calls to a retired protocol version with FAILED_PRECONDITION naming this one."""

    def service(self, handler_call_details):
        method = handler_call_details.method
        if environment_versions.retired_service_of(method) is None:
            return None

        async def refuse(request: bytes, context) -> None:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION,
                                environment_versions.retired_call_message(method))

        return grpc.unary_unary_rpc_method_handler(refuse)


def environment_service(servicer: EnvironmentServicer) -> ServiceSpec:
    """The `ServiceSpec` that registers `servicer` as lats.environment.v2.Environment
    (and the refusal of retired versions)."""

    def register(server) -> None:
        environment_pb2_grpc.add_EnvironmentServicer_to_server(servicer, server)
        server.add_generic_rpc_handlers((RetiredVersions(),))

    return ServiceSpec(full_name=SERVICE_NAME, register=register)


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
    return EnvironmentServer(running, servicer)


async def wait_until_ready(domain: Domain) -> None:
    """Returns when `domain.ready()` does (a blocking one runs in a worker thread)."""
    if inspect.iscoroutinefunction(domain.ready):
        await domain.ready()
    else:
        await asyncio.to_thread(domain.ready)


async def report_readiness(domain: Domain, running: RunningServer) -> None:
    """Readiness (health service lats.environment.v2.Environment) NOT_SERVING until
    the domain is ready; then SERVING, or, for a domain that fronts upstreams
    (`Domain.upstreams`), SERVING while they answer (`lats_runtime.readiness`).

    A domain that fails to get ready turns liveness ("") NOT_SERVING too (its
    calls report the failure): a readiness probe keeps traffic away from it and
    a liveness probe restarts it.
    """
    try:
        await wait_until_ready(domain)
    except Exception:
        log.exception("environment %s did not get ready; health turns NOT_SERVING", domain.name)
        await running.set_serving(False)
        return
    log.info("environment %s is ready", domain.name)
    upstreams = list(domain.upstreams())
    if not upstreams:
        await running.set_ready(True)
        return
    await watch_readiness(running, upstreams)


async def serve_environment(
    domain: Domain, settings: EnvSettings, options: ServerOptions
) -> None:
    """Serves `domain` until SIGTERM/SIGINT, then closes the domain.

    The server listens at once, alive (health "" SERVING); its readiness follows
    the domain (`report_readiness`).
    """
    servicer = EnvironmentServicer(domain, settings)
    readiness: list[asyncio.Task] = []
    options = dataclasses.replace(options, ready_at_start=False)

    async def started(running: RunningServer) -> None:
        readiness.append(asyncio.create_task(report_readiness(domain, running)))

    async def stopped() -> None:
        for task in readiness:
            task.cancel()
        await servicer.close()

    await serve_forever([environment_service(servicer)], options,
                        on_started=started, on_stopped=stopped)
