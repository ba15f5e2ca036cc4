"""`python -m env_servers.coderunner`: the code runner with its own flags.

Takes every flag of `lats serve env` (host, port, sessions, snapshot key,
deadline) plus the code runner's. Each flag also has a LATS_CODERUNNER_*
variable, which is how `lats serve env coderunner` is configured.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import click

from env_servers.cli import serve_env
from env_servers.coderunner.config import (
    DEFAULT_INTERNAL_TESTS,
    MAX_INTERNAL_TESTS,
    REWARD_MODES,
    SANDBOXES,
    CodeRunnerConfig,
)
from env_servers.coderunner.domain import CodeRunnerDomain
from env_servers.core import EnvSettings, serve_environment
from lats_runtime.addresses import listen_address
from lats_runtime.serving import ServerOptions

_SHARED_PARAMS = [param for param in serve_env.params if param.name != "name"]


def _serve(host: str, port: int, max_sessions: int, session_ttl: float,
           max_batch_actions: int, snapshot_key: str | None, deadline: float,
           metrics_port: int | None, sandbox: str,
           allow_insecure_sandbox: bool, reward_mode: str, internal_tests: int,
           task_file: tuple[Path, ...]) -> None:
    """Serve the code-runner environment over gRPC (lats.v1.Environment)."""
    try:
        config = CodeRunnerConfig(
            sandbox=sandbox, allow_insecure_sandbox=allow_insecure_sandbox,
            reward_mode=reward_mode, internal_tests=internal_tests,
            extra_task_files=tuple(task_file))
    except ValueError as error:
        raise click.UsageError(str(error)) from error
    domain = CodeRunnerDomain(config)
    settings = EnvSettings(max_sessions=max_sessions, session_ttl_seconds=session_ttl,
                           max_batch_actions=max_batch_actions, snapshot_key=snapshot_key)
    options = ServerOptions(address=listen_address(host, port), unary_deadline_seconds=deadline,
                            metrics_port=metrics_port, name="env/coderunner")
    asyncio.run(serve_environment(domain, settings, options))


serve_coderunner = click.Command(
    name="coderunner",
    callback=_serve,
    help=_serve.__doc__,
    params=[
        *_SHARED_PARAMS,
        click.Option(["--sandbox"], type=click.Choice(SANDBOXES), default="bwrap",
                     envvar="LATS_CODERUNNER_SANDBOX", show_default=True, show_envvar=True,
                     help="Where programs run. 'process' is NOT isolated and needs "
                          "--allow-insecure-sandbox."),
        click.Option(["--allow-insecure-sandbox"], is_flag=True, default=False,
                     envvar="LATS_CODERUNNER_ALLOW_INSECURE_SANDBOX", show_envvar=True,
                     help="Permit --sandbox process (development only: no isolation)."),
        click.Option(["--reward-mode"], type=click.Choice(REWARD_MODES), default="none",
                     envvar="LATS_CODERUNNER_REWARD_MODE", show_default=True, show_envvar=True,
                     help="none: rewards come from the model's own tests only; hidden tests "
                          "run in Score alone. oracle: the official LATS code's behaviour, "
                          "where hidden tests steer the search and end it; reported by "
                          "Describe as reward_mode 'oracle'."),
        click.Option(["--internal-tests"], type=click.IntRange(1, MAX_INTERNAL_TESTS),
                     default=DEFAULT_INTERNAL_TESTS, envvar="LATS_CODERUNNER_INTERNAL_TESTS",
                     show_default=True, show_envvar=True,
                     help="Asserts the setup prompt asks for, and the most kept per problem."),
        click.Option(["--task-file"], multiple=True,
                     type=click.Path(exists=True, dir_okay=False, path_type=Path),
                     help="Extra problems (HumanEval, MultiPL-E or MBPP format); each file "
                          "becomes a split named after it. Repeatable."),
    ],
)
