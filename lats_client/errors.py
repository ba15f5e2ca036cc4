"""What a failed call to a LATS service raises: an error that names the service,
its address, the status and the server's own words.

`service_error(service, address, error)` turns a gRPC error into the most
specific class below; every class is a `LatsError`, whose `code` is the gRPC
status name ("UNAVAILABLE", ...) and whose message reads
"planner at HOST:PORT: UNAVAILABLE: <details>".
"""

from __future__ import annotations

import grpc


class InvalidSetting(ValueError):
    """A search setting the client cannot send as given (raised before any call):
    names the field, the value and what it takes."""

    def __init__(self, field: str, value, takes: str):
        super().__init__(f"{field}={value!r}: {takes}")
        self.field = field
        self.value = value


class LatsError(Exception):
    """A call to `service` at `address` failed with status `code`."""

    def __init__(self, service: str, address: str, code: str, details: str):
        super().__init__(f"{service} at {address}: {code}: {details}")
        self.service = service
        self.address = address
        self.code = code
        self.details = details


class ServiceUnavailable(LatsError):
    """No server answered, or the service could not reach one it depends on (the
    details name which): UNAVAILABLE."""


class DeadlineExceeded(LatsError):
    """The call's deadline passed before the answer came: DEADLINE_EXCEEDED."""


class InvalidRequest(LatsError):
    """The request cannot be served as given (the details say what to fix):
    INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE or ALREADY_EXISTS."""


class RunNotFound(LatsError):
    """No run with that id: NOT_FOUND."""


class ServiceBusy(LatsError):
    """The service is at capacity; retry later: RESOURCE_EXHAUSTED."""


class NotAPlanner(LatsError):
    """The server at the address does not serve this call: UNIMPLEMENTED."""


_CLASSES = {
    grpc.StatusCode.UNAVAILABLE: ServiceUnavailable,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceeded,
    grpc.StatusCode.INVALID_ARGUMENT: InvalidRequest,
    grpc.StatusCode.FAILED_PRECONDITION: InvalidRequest,
    grpc.StatusCode.OUT_OF_RANGE: InvalidRequest,
    grpc.StatusCode.ALREADY_EXISTS: InvalidRequest,
    grpc.StatusCode.NOT_FOUND: RunNotFound,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ServiceBusy,
    grpc.StatusCode.UNIMPLEMENTED: NotAPlanner,
}


def service_error(service: str, address: str, error: grpc.RpcError) -> LatsError:
    """The LatsError for a failed gRPC call (sync or asyncio)."""
    code = error.code()
    details = " ".join((error.details() or "").split()) or "(no details)"
    return _CLASSES.get(code, LatsError)(service, address, code.name, details)
