"""The `lats` command line: one entry point for every service and tool.

Subcommands are contributed by the packages that own them:
  lats serve env NAME      env_servers.cli
  lats serve openenv NAME  env_servers.openenv_app.cli
  lats serve gateway       llm_gateway.cli
  lats serve planner       planner.cli
  lats serve ui            lats.ui.cli
  lats solve               planner.cli
  lats conformance ADDR    lats.conformance.cli
  lats model ...           llm_gateway.model_cli
  lats demo                lats.demo
  lats bench               lats.method_comparison.cli
  lats runs ...            lats.run_inspection.cli
  lats wiki ...            env_servers.wiki.cli
  lats webshop ...         env_servers.webshop.cli
  lats health ADDR         lats.health
  lats deploy ...          lats.deploy_artifacts.cli
"""

from __future__ import annotations

import os

import click

from lats_runtime.logs import LOG_FORMATS, configure_logging


@click.group()
@click.option("--log-level", default=lambda: os.environ.get("LATS_LOG_LEVEL", "INFO"),
              show_default="INFO (env LATS_LOG_LEVEL)", help="Python logging level.")
@click.option("--log-format", type=click.Choice(LOG_FORMATS),
              default=lambda: os.environ.get("LATS_LOG_FORMAT", "text"),
              show_default="text (env LATS_LOG_FORMAT)",
              help="text for people; json: one JSON object per line, with the run id of "
                   "every line logged for a run.")
def main(log_level: str, log_format: str) -> None:
    """Language Agent Tree Search as gRPC services."""
    configure_logging(log_level, log_format)


@main.group()
def serve() -> None:
    """Run one of the services until SIGTERM."""


def _register() -> None:
    from env_servers.cli import serve_env
    from env_servers.openenv_app.cli import serve_openenv
    from env_servers.webshop.cli import webshop
    from env_servers.wiki.cli import wiki
    from lats.method_comparison.cli import bench
    from lats.conformance.cli import conformance
    from lats.deploy_artifacts.cli import deploy
    from lats.health import health
    from lats.demo import demo
    from lats.run_inspection.cli import runs
    from lats.ui.cli import serve_ui
    from llm_gateway.model_cli import model
    from llm_gateway.cli import serve_gateway
    from planner.cli import serve_planner, solve

    serve.add_command(serve_env, "env")
    serve.add_command(serve_openenv, "openenv")
    serve.add_command(serve_gateway, "gateway")
    serve.add_command(serve_planner, "planner")
    serve.add_command(serve_ui, "ui")
    main.add_command(solve, "solve")
    main.add_command(conformance, "conformance")
    main.add_command(model, "model")
    main.add_command(demo, "demo")
    main.add_command(bench, "bench")
    main.add_command(runs, "runs")
    main.add_command(wiki, "wiki")
    main.add_command(webshop, "webshop")
    main.add_command(health, "health")
    main.add_command(deploy, "deploy")
    _show_envvars(main)


def _show_envvars(command: click.Command) -> None:
    """Every option that reads an environment variable names it in --help."""
    for param in command.params:
        if isinstance(param, click.Option) and param.envvar:
            param.show_envvar = True
    for sub in getattr(command, "commands", {}).values():
        _show_envvars(sub)


_register()
