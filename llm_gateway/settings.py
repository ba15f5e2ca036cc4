"""Limits and defaults the gateway enforces on every request."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GatewaySettings:
    """Request limits, the backend concurrency cap and the usage ledger's size.

    `default_max_tokens` is used when a request leaves max_tokens at 0.
    """

    max_n: int = 16
    max_tokens_limit: int = 4096
    default_max_tokens: int = 256
    max_concurrency: int = 4
    max_stop_sequences: int = 8
    max_stop_chars: int = 100
    usage_run_capacity: int = 10_000
