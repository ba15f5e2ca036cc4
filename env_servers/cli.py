"""`lats serve env NAME`: serve one registered environment until SIGTERM.

Each registered domain is a subcommand. It takes the server's options (host,
port, batch limit, snapshot key, deadline) and the domain's own settings, which
its settings class declares (`env_servers.core.domain_settings`); every
option falls back to its environment variable, and `--help` shows both.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import click

from env_servers.core import CannotServe, EnvSettings, serve_environment
from env_servers.core.domain_settings import build_settings, settings_options
from env_servers.core.settings import DEFAULT_MAX_BATCH_ACTIONS
from env_servers.registry import UnknownDomain, domain_class, registered_domains
from lats_runtime.addresses import listen_address
from lats_runtime.serving import ServerOptions


def server_options() -> list[click.Option]:
    """The options every environment server takes, whatever its domain."""
    return [
        click.Option(["--host"], default="127.0.0.1", envvar="LATS_HOST", show_default=True,
                     show_envvar=True, help="Interface to listen on (0.0.0.0 in a container)."),
        click.Option(["--port"], default=50051, type=click.IntRange(0, 65535),
                     envvar="LATS_PORT", show_default=True, show_envvar=True,
                     help="Port to listen on (0 = any free port)."),
        click.Option(["--max-batch-actions"], default=DEFAULT_MAX_BATCH_ACTIONS,
                     type=click.IntRange(min=1), envvar="LATS_MAX_BATCH_ACTIONS",
                     show_default=True, show_envvar=True,
                     help="Most actions one Step call may carry."),
        click.Option(["--snapshot-key"], default=None, envvar="LATS_SNAPSHOT_KEY",
                     show_envvar=True,
                     help="Secret that signs snapshot blobs; replicas must share it. "
                          "Unset (and no --snapshot-key-file): a random per-process key."),
        click.Option(["--snapshot-key-file"], default=None, envvar="LATS_SNAPSHOT_KEY_FILE",
                     show_envvar=True,
                     type=click.Path(exists=True, dir_okay=False, path_type=Path),
                     help="File holding the snapshot key (a mounted Secret); "
                          "--snapshot-key wins."),
        click.Option(["--deadline"], default=120.0, type=click.FloatRange(min=0, min_open=True),
                     envvar="LATS_DEADLINE", show_default=True, show_envvar=True,
                     help="Seconds a single call may run before DEADLINE_EXCEEDED."),
        click.Option(["--metrics-port"], default=None, type=click.IntRange(0, 65535),
                     envvar="LATS_METRICS_PORT", show_envvar=True,
                     help="Serve Prometheus metrics at http://HOST:PORT/metrics (0 = any free "
                          "port; unset = no metrics endpoint)."),
    ]


def snapshot_key_of(key: str | None, key_file: Path | None) -> str | None:
    """The key given directly, else the stripped content of the key file."""
    if key:
        return key
    if key_file is None:
        return None
    text = key_file.read_text(encoding="utf-8").strip()
    if not text:
        raise click.BadParameter(f"{key_file} is empty", param_hint="--snapshot-key-file")
    return text


def built_domain(name: str, domain_values: dict):
    """The registered domain `name` built from its command-line settings; a usage
    error for bad settings, a click error when the domain cannot serve here."""
    cls = domain_class(name)
    settings = None
    if cls.settings_class is not None:
        try:
            settings = build_settings(cls.settings_class, domain_values)
        except ValueError as error:
            raise click.UsageError(str(error)) from error
    try:
        return cls(settings) if cls.settings_class is not None else cls()
    except CannotServe as error:
        raise click.ClickException(f"cannot serve {name}: {error}") from error


def domain_command(name: str) -> click.Command:
    """`lats serve env NAME`: the server's options plus the domain's settings."""
    cls = domain_class(name)
    settings_class = cls.settings_class
    domain_params = settings_options(settings_class) if settings_class else []

    def serve(host: str, port: int, max_batch_actions: int, snapshot_key: str | None,
              snapshot_key_file: Path | None, deadline: float, metrics_port: int | None,
              **domain_values) -> None:
        domain = built_domain(name, domain_values)
        server_settings = EnvSettings(
            max_batch_actions=max_batch_actions,
            snapshot_key=snapshot_key_of(snapshot_key, snapshot_key_file))
        options = ServerOptions(address=listen_address(host, port),
                                unary_deadline_seconds=deadline, metrics_port=metrics_port,
                                name=f"env/{name}")
        asyncio.run(serve_environment(domain, server_settings, options))

    return click.Command(
        name, callback=serve, params=[*server_options(), *domain_params],
        help=f"{cls.description}\n\nServes the environment {name} over gRPC "
             "(lats.environment.v2.Environment) until SIGTERM.")


class EnvironmentCommands(click.Group):
    """One subcommand per registered domain, built when asked for by `make_command`
    (default: the gRPC server's)."""

    def __init__(self, *args, make_command=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.make_command = make_command or domain_command

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(registered_domains())

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        try:
            return self.make_command(name)
        except UnknownDomain as error:
            raise click.UsageError(str(error), ctx) from None
        except Exception as error:  # a broken plugin: say so, do not hide the others
            return click.Command(name, short_help=f"unavailable: {error}"[:70],
                                 callback=_unavailable(name, error))


def _unavailable(name: str, error: Exception):
    def fail() -> None:
        raise click.ClickException(f"environment {name!r} cannot be loaded: "
                                   f"{type(error).__name__}: {error}")
    return fail


serve_env = EnvironmentCommands(
    "env", help="Serve one environment over gRPC until SIGTERM: lats serve env NAME [OPTIONS].")
