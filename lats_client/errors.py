"""What a failed call to a LATS service raises: an error that names the service,
its address, the status and the server's own words.

`service_error(service, address, error)` turns a gRPC error into the most
specific class below; every class is a `LatsError`, whose `code` is the gRPC
status name ("UNAVAILABLE", ...) and whose message reads
"planner at HOST:PORT: UNAVAILABLE: <details>". A client of another service
passes its own classes for the codes it means otherwise (the environment
client: NOT_FOUND is `TaskNotFound`, UNIMPLEMENTED `NotAnEnvironment`).
"""

from __future__ import annotations

from collections.abc import Mapping

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


class NotFound(LatsError):
    """What the call names does not exist there: NOT_FOUND."""


class RunNotFound(NotFound):
    """No run with that id: NOT_FOUND."""


class TaskNotFound(NotFound):
    """The environment lists no task with that id (see its ListTasks): NOT_FOUND."""


class ServiceBusy(LatsError):
    """The service is at capacity; retry later: RESOURCE_EXHAUSTED."""


class NotAPlanner(LatsError):
    """The server at the address does not serve this call: UNIMPLEMENTED."""


class NotAnEnvironment(LatsError):
    """The server at the address does not serve lats.environment.v2: UNIMPLEMENTED."""


class EpisodeEnded(ValueError):
    """A step from a state whose episode has ended (raised before any call): reset,
    or step from an earlier state."""


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


# A Solve that cannot start because its environment has no such task is NOT_FOUND.
SOLVE_ERRORS = {grpc.StatusCode.NOT_FOUND: TaskNotFound}


def service_error(service: str, address: str, error: grpc.RpcError,
                  classes: Mapping[grpc.StatusCode, type[LatsError]] | None = None) -> LatsError:
    """The LatsError for a failed gRPC call (sync or asyncio); `classes` overrides
    the class of some codes."""
    code = error.code()
    details = " ".join((error.details() or "").split()) or "(no details)"
    found = (classes or {}).get(code) or _CLASSES.get(code, LatsError)
    return found(service, address, code.name, details)
