"""The environment server framework: a `Domain` plus `EnvironmentServicer`.

A new environment implements `Domain` (see `domain.py`) and adds one line to
`env_servers.registry`; snapshots, validation, limits and paging come from
here (environment.proto, package lats.environment.v2).
"""

from env_servers.core.domain import (
    Domain,
    DomainDescription,
    ResetOutcome,
    ScoreResult,
    State,
    StepOutcome,
    TaskSpec,
)
from env_servers.core.errors import (
    CannotServe,
    CapacityExhausted,
    EnvError,
    FailedPrecondition,
    InvalidRequest,
    InvalidTask,
    NotFound,
    TaskNotFound,
    Unavailable,
)
from env_servers.core.server import (
    EnvironmentServer,
    environment_service,
    serve_environment,
    start_environment_server,
)
from env_servers.core.servicer import EnvironmentServicer
from env_servers.core.settings import EnvSettings

__all__ = [
    "CannotServe",
    "CapacityExhausted",
    "Domain",
    "DomainDescription",
    "EnvError",
    "EnvSettings",
    "EnvironmentServer",
    "EnvironmentServicer",
    "FailedPrecondition",
    "InvalidRequest",
    "InvalidTask",
    "NotFound",
    "ResetOutcome",
    "ScoreResult",
    "State",
    "StepOutcome",
    "TaskNotFound",
    "TaskSpec",
    "Unavailable",
    "environment_service",
    "serve_environment",
    "start_environment_server",
]
