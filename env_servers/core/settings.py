"""Server-side settings of an environment server (the domain decides the rest)."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MAX_SESSIONS = 1024
DEFAULT_SESSION_TTL_SECONDS = 600.0
DEFAULT_MAX_BATCH_ACTIONS = 32


@dataclass(frozen=True)
class EnvSettings:
    """Session limits, the Transition batch limit and the snapshot key.

    `snapshot_key` None or "" means a random per-process key (Restore then only
    works on this process). `max_steps` / `max_action_bytes` None mean the
    domain's defaults.
    """

    max_sessions: int = DEFAULT_MAX_SESSIONS
    session_ttl_seconds: float = DEFAULT_SESSION_TTL_SECONDS
    snapshot_key: str | None = None
    max_steps: int | None = None
    max_action_bytes: int | None = None
    max_batch_actions: int = DEFAULT_MAX_BATCH_ACTIONS
