"""This planner replica: its settings, and what every run it executes shares."""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass, field
from typing import Any

from planner.environment import Environment
from planner.environment_client import connect_environment
from planner.live_runs import LiveRuns
from planner.runs import LeaseSettings


def replica_name() -> str:
    """This planner process's owner name in the run store: host, pid, a nonce."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


@dataclass
class PlannerSettings:
    env_timeout: float = 120.0
    max_concurrent_runs: int = 8
    lease: LeaseSettings = field(default_factory=LeaseSettings)
    owner: str = field(default_factory=replica_name)
    address: str = ""                        # where this planner answers WatchRun
    max_watchers: int = 256                  # WatchRun streams open at once
    gateway_check_seconds: float = 5.0       # Solve: the gateway must answer within this


@dataclass
class Replica:
    """The planner replica a run executes on: its settings, its LLM gateway client
    and its live runs."""

    settings: PlannerSettings
    gateway: Any                             # planner.gateway_client.GatewayClient
    runs: LiveRuns

    def connect(self, address: str) -> Environment:
        """An environment client for `address` (ValueError if it is no address)."""
        return connect_environment(address, timeout=self.settings.env_timeout)
