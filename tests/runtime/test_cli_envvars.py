"""`lats ... --help` names the environment variable of every option that reads one."""

from __future__ import annotations

import click
from click.testing import CliRunner

from lats.cli import main


def _commands(command: click.Command, path=()):
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, (*path, name))


def test_every_option_read_from_the_environment_names_its_variable_in_help():
    unnamed = [f"{' '.join(path)} {param.opts[0]}" for path, command in _commands(main)
               for param in command.params
               if isinstance(param, click.Option) and param.envvar and not param.show_envvar]
    assert unnamed == []
    text = CliRunner().invoke(main, ["serve", "planner", "--help"], terminal_width=200).output
    for variable in ("LATS_PORT", "LATS_PLANNER_DB", "LATS_GATEWAY", "LATS_ADVERTISE"):
        assert variable in text
