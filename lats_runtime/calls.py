"""Clients for a service's unary calls: deadlines, one layer of retries, errors that name it.

Only idempotent calls may be retried: a retried call may have run already on
a replica that died before answering. Each attempt has its own deadline;
attempts back off exponentially with jitter (tenacity) until the retry window
closes. A retried call goes through a round-robin channel
(`lats_runtime.channels`), so it lands on another live replica.

Every attempt carries the current run id as metadata
(`lats_runtime.run_context`) and is counted and timed per service, method and
status (`lats_runtime.metrics`).

A call that fails for good raises `ServiceCallError`: a `grpc.aio.AioRpcError`
with the last attempt's status code whose details name the service, the
address and the method, so an error that ends a run says which service failed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import grpc

from lats_runtime.channels import DEFAULT_MAX_MESSAGE_BYTES, open_channel
from lats_runtime.metrics import CLIENT_CALLS, CLIENT_RETRIES, CLIENT_SECONDS
from lats_runtime.run_context import with_run_id
from tenacity import (
    AsyncRetrying,
    retry_if_exception,
    stop_after_attempt,
    stop_after_delay,
    wait_exponential_jitter,
)

TRANSIENT = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})
# A server sets this trailing metadata to "false" on an UNAVAILABLE that retrying
# cannot help (e.g. a gateway whose upstream failed after its own retries).
RETRYABLE_KEY = "lats-retryable"


@dataclass(frozen=True)
class RetryPolicy:
    """How long to keep retrying, and which status codes are worth it."""

    window_seconds: float = 30.0
    initial_backoff: float = 0.05
    max_backoff: float = 2.0
    codes: frozenset = TRANSIENT
    max_attempts: int = 0            # 0: as many as fit in the window

    def stop(self):
        stop = stop_after_delay(self.window_seconds)
        return stop | stop_after_attempt(self.max_attempts) if self.max_attempts else stop

    def should_retry(self, error: BaseException) -> bool:
        if not isinstance(error, grpc.aio.AioRpcError) or error.code() not in self.codes:
            return False
        metadata = error.trailing_metadata() or ()
        return not any(key == RETRYABLE_KEY and value == "false" for key, value in metadata)


NO_RETRY = RetryPolicy(window_seconds=0.0, codes=frozenset())


class ServiceCallError(grpc.aio.AioRpcError):
    """A call that failed for good: `code()` is the last attempt's status, and
    `details()` names the service, address and method before the server's words."""

    def __init__(self, service: str, address: str, method: str, code: grpc.StatusCode,
                 details: str, attempts: int, trailing_metadata=None):
        tried = f" after {attempts} attempts" if attempts > 1 else ""
        super().__init__(code, grpc.aio.Metadata(), trailing_metadata or grpc.aio.Metadata(),
                         f"{service} at {address}: {method} failed{tried}: {details}")
        self.service = service
        self.address = address
        self.method = method
        self.server_details = details

    def __str__(self) -> str:
        return f"{self.code().name}: {self.details()}"


class ServiceClient:
    """Unary calls to one service behind an address (one or many replicas).

    `unary(name, request)` calls the stub method `name` with a per-attempt
    deadline of `timeout` seconds (unless given) and retries per `policy`
    (default: the client's).
    """

    def __init__(self, service: str, address: str, stub_class, *, timeout: float,
                 policy: RetryPolicy = NO_RETRY,
                 max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES):
        self.service = service
        self.address = address
        self.timeout = timeout
        self.policy = policy
        self.channel = open_channel(address, max_message_bytes=max_message_bytes)
        self.stub = stub_class(self.channel)

    async def unary(self, name: str, request, *, policy: RetryPolicy | None = None,
                    timeout: float | None = None, metadata=None):
        method = getattr(self.stub, name)
        policy = self.policy if policy is None else policy
        timeout = timeout or self.timeout
        metadata = with_run_id(metadata)

        async def attempt_once():
            started = time.perf_counter()
            code = "OK"
            try:
                return await method(request, timeout=timeout, metadata=metadata)
            except grpc.aio.AioRpcError as error:
                code = error.code().name
                raise
            except BaseException:
                code = "CANCELLED"
                raise
            finally:
                CLIENT_CALLS.labels(self.service, name, code).inc()
                CLIENT_SECONDS.labels(self.service, name).observe(time.perf_counter() - started)

        try:   # the first attempt without the retry machinery: most calls need no more
            return await attempt_once()
        except grpc.aio.AioRpcError as error:
            if not policy.should_retry(error):
                raise self._failed(name, error, 1) from error
        attempts = 1
        try:
            async for attempt in AsyncRetrying(
                stop=policy.stop(),
                wait=wait_exponential_jitter(multiplier=policy.initial_backoff,
                                             max=policy.max_backoff),
                retry=retry_if_exception(policy.should_retry),
                reraise=True,
            ):
                with attempt:
                    attempts += 1
                    CLIENT_RETRIES.labels(self.service, name).inc()
                    return await attempt_once()
        except grpc.aio.AioRpcError as error:
            raise self._failed(name, error, attempts) from error

    def _failed(self, name: str, error: grpc.aio.AioRpcError, attempts: int) -> ServiceCallError:
        return ServiceCallError(self.service, self.address, name, error.code(),
                                error.details() or "", attempts, error.trailing_metadata())

    async def aclose(self) -> None:
        await self.channel.close()
