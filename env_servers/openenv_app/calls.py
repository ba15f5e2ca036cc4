"""Calling an `EnvironmentServicer` in process, as a gRPC client would.

The OpenEnv environment drives our servicer through its own RPC methods
(Reset, Step, Score, ...), so every rule of environment.proto holds
unchanged: validation, step counting, truncation, invalid actions, signed
blobs, replays. A refused call raises `CallRefused` with the status
and the message the servicer would have sent.
"""

from __future__ import annotations

import grpc

from env_servers.core.servicer import EnvironmentServicer


class CallRefused(RuntimeError):
    """The servicer answered with an error status."""

    def __init__(self, code: grpc.StatusCode, details: str):
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details


class _Context:
    """The part of grpc.aio.ServicerContext the servicer uses: abort."""

    async def abort(self, code: grpc.StatusCode, details: str = "") -> None:
        raise CallRefused(code, details)


class InProcessEnvironment:
    """`await env.call("Step", request)` -> the response message."""

    def __init__(self, servicer: EnvironmentServicer):
        self.servicer = servicer

    async def call(self, method: str, request):
        return await getattr(self.servicer, method)(request, _Context())
