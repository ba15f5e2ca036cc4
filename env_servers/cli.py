"""`lats serve env NAME`: serve one registered environment until SIGTERM.

Every setting comes from a flag or its environment variable (flags win).
"""

from __future__ import annotations

import asyncio

import click

from env_servers.core import EnvSettings, serve_environment
from env_servers.core.settings import (
    DEFAULT_MAX_BATCH_ACTIONS,
    DEFAULT_MAX_SESSIONS,
    DEFAULT_SESSION_TTL_SECONDS,
)
from env_servers.registry import DOMAINS, load_domain
from lats_runtime.addresses import listen_address
from lats_runtime.serving import ServerOptions


@click.command()
@click.argument("name", type=click.Choice(sorted(DOMAINS)))
@click.option("--host", default="127.0.0.1", envvar="LATS_HOST", show_default=True,
              show_envvar=True, help="Interface to listen on.")
@click.option("--port", default=50051, type=click.IntRange(0, 65535), envvar="LATS_PORT",
              show_default=True, show_envvar=True, help="Port to listen on (0 = any free port).")
@click.option("--max-sessions", default=DEFAULT_MAX_SESSIONS, type=click.IntRange(min=1),
              envvar="LATS_MAX_SESSIONS", show_default=True, show_envvar=True,
              help="Open sessions allowed before Reset/Restore answer RESOURCE_EXHAUSTED.")
@click.option("--session-ttl", default=DEFAULT_SESSION_TTL_SECONDS,
              type=click.FloatRange(min=0, min_open=True), envvar="LATS_SESSION_TTL",
              show_default=True, show_envvar=True,
              help="Seconds a session may stay idle before it expires.")
@click.option("--max-batch-actions", default=DEFAULT_MAX_BATCH_ACTIONS, type=click.IntRange(min=1),
              envvar="LATS_MAX_BATCH_ACTIONS", show_default=True, show_envvar=True,
              help="Most actions one stateless Transition call may carry.")
@click.option("--snapshot-key", default=None, envvar="LATS_SNAPSHOT_KEY", show_envvar=True,
              help="Secret that signs snapshot blobs; replicas must share it. "
                   "Unset: a random per-process key.")
@click.option("--deadline", default=120.0, type=click.FloatRange(min=0, min_open=True),
              envvar="LATS_DEADLINE", show_default=True, show_envvar=True,
              help="Seconds a single call may run before DEADLINE_EXCEEDED.")
@click.option("--metrics-port", default=None, type=click.IntRange(0, 65535),
              envvar="LATS_METRICS_PORT", show_envvar=True,
              help="Serve Prometheus metrics at http://HOST:PORT/metrics (0 = any free port; "
                   "unset = no metrics endpoint).")
def serve_env(name: str, host: str, port: int, max_sessions: int, session_ttl: float,
              max_batch_actions: int, snapshot_key: str | None, deadline: float,
              metrics_port: int | None) -> None:
    """Serve the environment NAME over gRPC (lats.v1.Environment)."""
    domain = load_domain(name)
    settings = EnvSettings(
        max_sessions=max_sessions,
        session_ttl_seconds=session_ttl,
        max_batch_actions=max_batch_actions,
        snapshot_key=snapshot_key,
    )
    options = ServerOptions(
        address=listen_address(host, port), unary_deadline_seconds=deadline,
        metrics_port=metrics_port, name=f"env/{name}",
    )
    asyncio.run(serve_environment(domain, settings, options))
