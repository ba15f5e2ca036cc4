"""Sandboxes that run untrusted Python programs with tests under limits.

`make_sandbox("bwrap" | "docker" | "process" | "auto")` returns a `Sandbox`;
see `base` for the contract.
"""

from env_servers.sandbox.base import (
    Limits,
    RunRequest,
    RunResult,
    Sandbox,
    SandboxUnavailable,
    TestOutcome,
)
from env_servers.sandbox.factory import make_sandbox

__all__ = [
    "Limits",
    "RunRequest",
    "RunResult",
    "Sandbox",
    "SandboxUnavailable",
    "TestOutcome",
    "make_sandbox",
]
