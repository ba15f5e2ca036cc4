"""Shared gRPC server plumbing: every LATS service is started through `serve`.

Contract: a server built here
  * listens on the given address and logs it (the real port when 0 was asked);
  * answers the standard gRPC health service (grpc.health.v1) and server
    reflection for the services it hosts. Health says two things: the server
    as a whole ("") is its liveness, SERVING from the start until shutdown
    while the process runs; each hosted service's full name (e.g.
    lats.v1.Planner) is its readiness, SERVING while it can do its job (its
    owner turns it off while it is getting ready or an upstream it needs does
    not answer: `set_ready`, `lats_runtime.readiness`);
  * caps request size (oversized requests get RESOURCE_EXHAUSTED from gRPC);
  * answers request bytes that are not a valid message with INVALID_ARGUMENT
    (`lats_runtime.undecodable`);
  * bounds every unary call by a server-side deadline (DEADLINE_EXCEEDED);
  * on SIGTERM/SIGINT turns health (both) to NOT_SERVING, stops accepting calls and
    lets in-flight calls finish within a grace period, then exits;
  * counts, times and access-logs every call in the caller's run scope
    (`lats_runtime.observing`) and, given `metrics_port`, serves Prometheus
    metrics at http://HOST:METRICS_PORT/metrics (`lats_runtime.metrics`).
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from lats_runtime.logs import set_service
from lats_runtime.metrics import MetricsServer, start_metrics_server
from lats_runtime.observing import ObservingInterceptor
from lats_runtime.undecodable import UndecodableRequestInterceptor

log = logging.getLogger(__name__)

DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024


@dataclass
class ServiceSpec:
    """One service to host: its full name and a function that registers it."""

    full_name: str
    register: Callable[[grpc.aio.Server], None]


@dataclass
class ServerOptions:
    address: str = "127.0.0.1:0"
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    unary_deadline_seconds: float = 120.0
    grace_seconds: float = 5.0
    # False: the hosted services' readiness is NOT_SERVING until the owner calls
    # set_ready(True); liveness ("") is SERVING from the start either way.
    ready_at_start: bool = True
    extra_options: list[tuple[str, int]] = field(default_factory=list)
    metrics_port: int | None = None     # None: no /metrics endpoint; 0: any free port
    name: str = ""                      # the service's name in logs ("" = its gRPC services)


class _DeadlineInterceptor(grpc.aio.ServerInterceptor):
    """Aborts unary-unary handlers that run longer than `seconds`."""

    def __init__(self, seconds: float):
        self._seconds = seconds

    async def intercept_service(self, continuation, handler_call_details):
        handler = await continuation(handler_call_details)
        if handler is None or handler.unary_unary is None or self._seconds <= 0:
            return handler
        inner = handler.unary_unary
        seconds = self._seconds

        async def bounded(request, context):
            try:
                async with asyncio.timeout(seconds):   # no extra task per call
                    return await inner(request, context)
            except TimeoutError:
                await context.abort(
                    grpc.StatusCode.DEADLINE_EXCEEDED,
                    f"the server gave up after {seconds:g}s; retry, or raise the "
                    "server's --deadline if requests are legitimately slow",
                )

        return grpc.unary_unary_rpc_method_handler(
            bounded,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )


class RunningServer:
    """A started server: its bound port, and a way to stop it gracefully."""

    def __init__(self, server: grpc.aio.Server, port: int, health_servicer, names):
        self.server = server
        self.port = port
        self._health = health_servicer
        self._names = names
        self._stopping = False

    @property
    def service_names(self) -> list[str]:
        """The hosted services' full names: the health service names of readiness."""
        return list(self._names)

    async def set_ready(self, ready: bool) -> None:
        """Readiness: every hosted service SERVING or NOT_SERVING; liveness ("")
        is left alone. Ignored once the server is stopping."""
        if not self._stopping:
            await self._set(self._names, ready)

    async def set_serving(self, serving: bool) -> None:
        """Liveness and readiness together: the server ("") and every hosted service."""
        await self._set(["", *self._names], serving)

    async def _set(self, names: Iterable[str], serving: bool) -> None:
        status = (health_pb2.HealthCheckResponse.SERVING if serving
                  else health_pb2.HealthCheckResponse.NOT_SERVING)
        for name in names:
            await self._health.set(name, status)

    async def stop(self, grace: float | None = 5.0) -> None:
        self._stopping = True
        await self.set_serving(False)
        await self.server.stop(grace)

    async def wait(self) -> None:
        await self.server.wait_for_termination()


async def start_server(
    services: Iterable[ServiceSpec], options: ServerOptions
) -> RunningServer:
    """Builds, binds and starts a server hosting `services`."""
    services = list(services)
    grpc_options = [
        ("grpc.max_receive_message_length", options.max_message_bytes),
        ("grpc.max_send_message_length", options.max_message_bytes),
        ("grpc.so_reuseport", 0),
        *options.extra_options,
    ]
    server = grpc.aio.server(
        interceptors=[ObservingInterceptor(),
                      _DeadlineInterceptor(options.unary_deadline_seconds),
                      UndecodableRequestInterceptor()],
        options=grpc_options,
    )
    for spec in services:
        spec.register(server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    names = [spec.full_name for spec in services]
    reflection.enable_server_reflection(
        [*names, health.SERVICE_NAME, reflection.SERVICE_NAME], server
    )
    port = server.add_insecure_port(options.address)
    if port == 0:
        raise OSError(f"could not bind {options.address}: is the port in use?")
    await server.start()
    running = RunningServer(server, port, health_servicer, names)
    await running.set_serving(True)
    await running.set_ready(options.ready_at_start)
    return running


def bound_address(address: str, port: int) -> str:
    host = address.rsplit(":", 1)[0] or "127.0.0.1"
    return f"{host}:{port}"


async def serve_forever(
    services: Iterable[ServiceSpec],
    options: ServerOptions,
    on_started: Callable[[RunningServer], Awaitable[None] | None] | None = None,
    on_stopped: Callable[[], Awaitable[None]] | None = None,
    on_stopping: Callable[[], None] | None = None,
) -> None:
    """Runs a server until SIGTERM/SIGINT, then shuts down gracefully.

    `on_stopping` runs as shutdown begins (before the grace period);
    `on_stopped` runs after in-flight calls have finished (or the grace period
    ran out), to release what the servicers hold.
    """
    services = list(services)
    set_service(options.name or ",".join(s.full_name.rsplit(".", 1)[-1] for s in services))
    metrics = _start_metrics(options)
    running = await start_server(services, options)
    names = ", ".join(s.full_name for s in services)
    log.info("listening on %s (%s)", bound_address(options.address, running.port), names)
    print(f"listening on {bound_address(options.address, running.port)}", flush=True)
    if on_started is not None:
        result = on_started(running)
        if asyncio.iscoroutine(result):
            await result
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    waiter = asyncio.create_task(running.wait())
    stopper = asyncio.create_task(stop.wait())
    await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
    log.info("shutting down (grace %.1fs)", options.grace_seconds)
    if on_stopping is not None:
        on_stopping()
    await running.stop(options.grace_seconds)
    if on_stopped is not None:
        await on_stopped()
    for task in (waiter, stopper):
        task.cancel()
    if metrics is not None:
        metrics.stop()
    log.info("stopped")


def _start_metrics(options: ServerOptions) -> MetricsServer | None:
    """The /metrics endpoint on the server's interface, announced like the server."""
    if options.metrics_port is None:
        return None
    host = options.address.rsplit(":", 1)[0].strip("[]") or "127.0.0.1"
    try:
        metrics = start_metrics_server(host, options.metrics_port)
    except OSError as error:
        raise OSError(f"could not serve metrics on {host}:{options.metrics_port}: "
                      f"{error}") from None
    log.info("metrics on %s", metrics.url)
    print(f"metrics on {metrics.url}", flush=True)
    return metrics
