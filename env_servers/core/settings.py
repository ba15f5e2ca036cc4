"""Server-side settings of an environment server (the domain decides the rest)."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MAX_BATCH_ACTIONS = 32


@dataclass(frozen=True)
class EnvSettings:
    """The Step batch limit, the snapshot key and overrides of the domain's limits.

    `snapshot_key` None or "" means a random per-process key (then only this
    process accepts its blobs). `max_steps` / `max_action_bytes` / `max_option_bytes` None
    mean the domain's defaults.
    """

    snapshot_key: str | None = None
    max_steps: int | None = None
    max_action_bytes: int | None = None
    max_option_bytes: int | None = None
    max_batch_actions: int = DEFAULT_MAX_BATCH_ACTIONS
