"""Requests that are not a valid message get INVALID_ARGUMENT, not UNKNOWN.

gRPC's Python server answers a request whose bytes its deserializer cannot
parse with UNKNOWN ("Unexpected <class 'DecodeError'>"). This interceptor
gives every unary-unary and unary-stream handler a deserializer that never
raises: bytes that do not parse become an `Undecodable` marker, and the handler
answers it with INVALID_ARGUMENT naming the method and the parse error, before
any servicer code runs. Install it as the last (innermost) interceptor, so the
handler it returns is the one the other interceptors wrap.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import grpc

MAX_ERROR_CHARS = 200


class Undecodable:
    """Stands in for a request whose bytes did not parse."""

    __slots__ = ("error",)

    def __init__(self, error: Exception):
        self.error = error


def _tolerant(deserializer: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    if deserializer is None:
        return None

    def deserialize(data: bytes) -> Any:
        try:
            return deserializer(data)
        except Exception as error:  # DecodeError, or whatever a deserializer raises on junk
            return Undecodable(error)

    return deserialize


async def _refuse(context, method: str, request: Undecodable) -> None:
    reason = str(request.error)[:MAX_ERROR_CHARS] or type(request.error).__name__
    await context.abort(
        grpc.StatusCode.INVALID_ARGUMENT,
        f"{method}: the request bytes are not a valid message ({reason}); "
        "send a well-formed protobuf message of the method's request type")


class UndecodableRequestInterceptor(grpc.aio.ServerInterceptor):
    """Answers undecodable unary requests with INVALID_ARGUMENT."""

    async def intercept_service(self, continuation, handler_call_details):
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler
        method = handler_call_details.method
        deserializer = _tolerant(handler.request_deserializer)
        if handler.unary_unary is not None:
            inner = handler.unary_unary

            async def unary(request, context):
                if isinstance(request, Undecodable):
                    await _refuse(context, method, request)
                return await inner(request, context)

            return grpc.unary_unary_rpc_method_handler(
                unary, request_deserializer=deserializer,
                response_serializer=handler.response_serializer)
        if handler.unary_stream is not None:
            inner_stream = handler.unary_stream

            async def stream(request, context):
                if isinstance(request, Undecodable):
                    await _refuse(context, method, request)
                produced = inner_stream(request, context)
                if inspect.isasyncgen(produced):
                    async for item in produced:
                        yield item
                else:                       # a handler that writes through the context
                    await produced

            return grpc.unary_stream_rpc_method_handler(
                stream, request_deserializer=deserializer,
                response_serializer=handler.response_serializer)
        return handler
