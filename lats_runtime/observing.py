"""The server interceptor that makes every RPC observable.

For each call it
  * enters the run scope of the caller's `lats-run-id` header
    (`lats_runtime.run_context`), so everything logged while serving the
    call names the run;
  * counts it and times it per method and final status code
    (`lats_runtime.metrics`), streaming calls from start to end;
  * writes one access-log line on the `lats.access` logger (INFO) with the
    method, the status, the duration and the run id (health checks and
    reflection are not logged).
Unary-unary and unary-stream handlers are wrapped; a status set by abort or
set_code is read back from the context, an unexpected exception counts as
UNKNOWN and a cancelled call as CANCELLED.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time

import grpc

from lats_runtime.metrics import RPC_HANDLED, RPC_IN_FLIGHT, RPC_SECONDS, RPC_STARTED
from lats_runtime.run_context import run_id_from, run_scope

access_log = logging.getLogger("lats.access")
_QUIET_SERVICES = ("grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection",
                   "grpc.reflection.v1.ServerReflection")


def _split(method: str) -> tuple[str, str]:
    service, _, name = method.lstrip("/").rpartition("/")
    return service or "unknown", name or method


class _Call:
    """One RPC's bookkeeping: labels, start time, and the record at its end."""

    def __init__(self, kind: str, method: str, metadata):
        self.method = method
        self.service, self.name = _split(method)
        self.labels = (kind, self.service, self.name)
        self.run_id = run_id_from(metadata)
        self.started = time.perf_counter()
        RPC_STARTED.labels(*self.labels).inc()
        RPC_IN_FLIGHT.labels(*self.labels).inc()

    def finish(self, context, error: BaseException | None) -> None:
        seconds = time.perf_counter() - self.started
        code = context.code() if hasattr(context, "code") else None
        if code is None:
            if isinstance(error, asyncio.CancelledError):
                code = grpc.StatusCode.CANCELLED
            elif error is not None and not isinstance(error, grpc.aio.AbortError):
                code = grpc.StatusCode.UNKNOWN
            else:
                code = grpc.StatusCode.OK
        RPC_IN_FLIGHT.labels(*self.labels).dec()
        RPC_HANDLED.labels(*self.labels, code.name).inc()
        RPC_SECONDS.labels(*self.labels, code.name).observe(seconds)
        if self.service not in _QUIET_SERVICES:
            access_log.info("%s %s %.1fms", self.method, code.name, seconds * 1000,
                            extra={"rpc": self.method, "code": code.name,
                                   "duration_ms": round(seconds * 1000, 3),
                                   "run_id": self.run_id})


class ObservingInterceptor(grpc.aio.ServerInterceptor):
    """Metrics, access log and run scope for every unary and server-streaming RPC."""

    async def intercept_service(self, continuation, handler_call_details):
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        method = handler_call_details.method
        metadata = handler_call_details.invocation_metadata
        if handler.unary_unary is not None:
            inner = handler.unary_unary

            async def unary(request, context):
                call = _Call("unary", method, metadata)
                error = None
                try:
                    with run_scope(call.run_id):
                        return await inner(request, context)
                except BaseException as caught:
                    error = caught
                    raise
                finally:
                    call.finish(context, error)

            return grpc.unary_unary_rpc_method_handler(
                unary, request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer)
        if handler.unary_stream is not None and inspect.isasyncgenfunction(handler.unary_stream):
            inner_stream = handler.unary_stream

            async def stream(request, context):
                call = _Call("server_stream", method, metadata)
                error = None
                try:
                    with run_scope(call.run_id):
                        async for item in inner_stream(request, context):
                            yield item
                except BaseException as caught:
                    error = caught
                    raise
                finally:
                    call.finish(context, error)

            return grpc.unary_stream_rpc_method_handler(
                stream, request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer)
        return handler
