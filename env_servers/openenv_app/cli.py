"""`lats serve openenv NAME`: one of our environments through openenv-core's server.

Each registered domain is a subcommand with its own settings (as under
`lats serve env`), plus the OpenEnv server's options. It prints
"listening on HOST:PORT" once its socket is bound and serves until SIGTERM.
`app_from_environment_variables` builds the same app for servers that import
one (the OpenEnv environment directory deploy/openenv/lats_env).
"""

from __future__ import annotations

import signal
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from env_servers.cli import EnvironmentCommands, built_domain, snapshot_key_of
from env_servers.core import EnvSettings
from env_servers.core.domain_settings import settings_options
from env_servers.registry import domain_class

if TYPE_CHECKING:
    from fastapi import FastAPI


def _options() -> list[click.Option]:
    return [
        click.Option(["--host"], default="127.0.0.1", envvar="LATS_HOST", show_default=True,
                     show_envvar=True, help="Interface to listen on (0.0.0.0 in a container)."),
        click.Option(["--port"], default=8000, type=click.IntRange(0, 65535),
                     envvar="LATS_PORT", show_default=True, show_envvar=True,
                     help="Port to listen on (0 = any free port)."),
        click.Option(["--max-concurrent-envs"], default=64, type=click.IntRange(min=1),
                     envvar="LATS_OPENENV_MAX_CONCURRENT_ENVS", show_default=True,
                     show_envvar=True, help="OpenEnv WebSocket sessions served at once."),
        click.Option(["--snapshot-key"], default=None, envvar="LATS_SNAPSHOT_KEY",
                     show_envvar=True,
                     help="Secret that signs snapshots; replicas must share it to restore "
                          "each other's. Unset: a random per-process key."),
        click.Option(["--snapshot-key-file"], default=None, envvar="LATS_SNAPSHOT_KEY_FILE",
                     show_envvar=True,
                     type=click.Path(exists=True, dir_okay=False, path_type=Path),
                     help="File holding the snapshot key; --snapshot-key wins."),
    ]


def openenv_command(name: str) -> click.Command:
    cls = domain_class(name)
    settings_class = cls.settings_class
    domain_params = settings_options(settings_class) if settings_class else []

    def serve(host: str, port: int, **app_values) -> None:
        import uvicorn

        app = served_app(name, **app_values)
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        bound = sock.getsockname()[1]
        shown = f"[{host}]" if family == socket.AF_INET6 else host
        click.echo(f"listening on {shown}:{bound} (OpenEnv: http://{shown}:{bound}, "
                   f"WebSocket /ws)")
        config = uvicorn.Config(app, log_level="warning", ws_max_size=16 * 1024 * 1024)
        # uvicorn shuts down gracefully on SIGTERM / SIGINT, then re-raises the signal
        # to the handler it found: make that one a clean exit.
        for stop in (signal.SIGTERM, signal.SIGINT):
            signal.signal(stop, lambda *_: sys.exit(0))
        uvicorn.Server(config).run(sockets=[sock])

    return click.Command(
        name, callback=serve, params=[*_options(), *domain_params],
        help=f"{cls.description}\n\nServes the environment {name} as an OpenEnv environment "
             "(openenv-core's HTTP and WebSocket server) until SIGTERM.")


def served_app(name: str, max_concurrent_envs: int, snapshot_key: str | None,
               snapshot_key_file: Path | None, **domain_values) -> FastAPI:
    """The OpenEnv app of environment `name`, from its command's option values."""
    from env_servers.openenv_app.app import build_app

    domain = built_domain(name, domain_values)
    return build_app(domain, EnvSettings(
        snapshot_key=snapshot_key_of(snapshot_key, snapshot_key_file)),
        max_concurrent_envs=max_concurrent_envs)


def app_from_environment_variables(name: str) -> FastAPI:
    """The app `lats serve openenv NAME` serves, every option read from its LATS_*
    variable or its default: for servers that import an app (`uvicorn MODULE:app`)."""
    command = openenv_command(name)
    with command.make_context(name, []) as context:
        values = dict(context.params)
    values.pop("host"), values.pop("port")
    return served_app(name, **values)


serve_openenv = EnvironmentCommands(
    "openenv", make_command=openenv_command,
    help="Serve one of our environments to OpenEnv clients (needs the openenv extra): "
         "lats serve openenv NAME [OPTIONS].")
