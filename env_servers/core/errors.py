"""Typed environment errors, each tied to the gRPC status the servicer answers with.

Domains and the framework raise these; `EnvironmentServicer` turns them into
`context.abort(error.code, str(error))`. Messages say what the caller should fix.
"""

from __future__ import annotations

import grpc


class EnvError(Exception):
    """Base class: a request the environment refuses, with its gRPC status."""

    code: grpc.StatusCode = grpc.StatusCode.INTERNAL


class InvalidRequest(EnvError):
    """Malformed request: bad action size, snapshot, option, task spec or page token."""

    code = grpc.StatusCode.INVALID_ARGUMENT


class NotFound(EnvError):
    """Unknown task id."""

    code = grpc.StatusCode.NOT_FOUND


class FailedPrecondition(EnvError):
    """The episode is over, or the operation needs a missing capability."""

    code = grpc.StatusCode.FAILED_PRECONDITION


class CapacityExhausted(EnvError):
    """No capacity is left for the request (e.g. the connections to a service the
    environment fronts); retry later."""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED


class Unavailable(EnvError):
    """A service the environment fronts cannot be reached or did not answer; retry."""

    code = grpc.StatusCode.UNAVAILABLE


class TaskNotFound(NotFound):
    """Raised by a domain's `reset` for a task id it does not know."""


class InvalidTask(InvalidRequest):
    """Raised by a domain's `reset` for an inline task spec it cannot use."""


class CannotServe(Exception):
    """A domain refuses to be served at all, saying why (raised by its constructor,
    e.g. an adapter whose environment turns out not to be deterministic).
    `lats serve env` reports the message and exits non-zero."""
