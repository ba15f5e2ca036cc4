"""Domain settings: one typed class per domain, turned into flags with env-var fallbacks."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from env_servers.cli import domain_command, serve_env
from env_servers.core.domain_settings import (
    build_settings,
    setting,
    settings_from_environment,
    settings_options,
)
from env_servers.registry import BUILTIN_DOMAINS, domain_class


@dataclass(frozen=True)
class Example:
    mode: str = setting("calm", env="EXAMPLE_MODE", choices=("calm", "wild"), help="How.")
    count: int = setting(3, env=("EXAMPLE_COUNT", "EXAMPLE_OLD_COUNT"), min=1, max=9,
                         help="How many.")
    ratio: float = setting(0.5, env="EXAMPLE_RATIO", min=0, min_open=True, help="Share.")
    loud: bool = setting(False, env="EXAMPLE_LOUD", help="Shout.")
    data: Path | None = setting(None, env="EXAMPLE_DATA", dir_okay=False, help="A file.")
    files: tuple[Path, ...] = setting((), env="EXAMPLE_FILES", flag="--file", help="Files.")
    plain: int = 7  # not a setting: no option

    def __post_init__(self) -> None:
        if self.loud and self.mode == "calm":
            raise ValueError("a calm example cannot be loud; pass --mode wild")


def _parse(args: list[str], env: dict[str, str] | None = None) -> Example:
    command = click.Command("x", params=settings_options(Example),
                            callback=lambda **values: build_settings(Example, values))
    result = CliRunner().invoke(command, args, env=env or {}, standalone_mode=False)
    if result.exception:
        raise result.exception
    return result.return_value


def test_every_field_made_with_setting_is_an_option_with_its_variable():
    options = {option.name: option for option in settings_options(Example)}
    assert list(options) == ["mode", "count", "ratio", "loud", "data", "files"]
    assert options["count"].envvar == ["EXAMPLE_COUNT", "EXAMPLE_OLD_COUNT"]
    assert options["files"].opts == ["--file"] and options["files"].multiple


def test_defaults_flags_and_variables_and_flags_win():
    assert _parse([]) == Example()
    assert _parse(["--mode", "WILD", "--count", "5", "--loud", "--file", "a", "--file", "b"]) \
        == Example(mode="wild", count=5, loud=True, files=(Path("a"), Path("b")))
    env = {"EXAMPLE_MODE": "wild", "EXAMPLE_OLD_COUNT": "4", "EXAMPLE_LOUD": "1",
           "EXAMPLE_FILES": os.pathsep.join(["a", "b"]), "EXAMPLE_RATIO": "0.25"}
    assert _parse([], env) == Example(mode="wild", count=4, loud=True, ratio=0.25,
                                      files=(Path("a"), Path("b")))
    assert _parse(["--count", "2", "--no-loud", "--mode", "calm"], env).count == 2


@pytest.mark.parametrize(("env", "message"), [
    ({"EXAMPLE_MODE": "lazy"}, "EXAMPLE_MODE: 'lazy' is not one of 'calm', 'wild'"),
    ({"EXAMPLE_COUNT": "12"}, "EXAMPLE_COUNT: 12 is not in the range 1<=x<=9"),
    ({"EXAMPLE_RATIO": "0"}, "EXAMPLE_RATIO: 0.0 is not in the range x>0"),
    ({"EXAMPLE_LOUD": "perhaps"}, "EXAMPLE_LOUD: 'perhaps' is not a valid boolean"),
    ({"EXAMPLE_LOUD": "yes"}, "a calm example cannot be loud"),
])
def test_bad_variables_are_refused_with_their_name(env, message):
    with pytest.raises(ValueError, match=message):
        settings_from_environment(Example, env)


def test_the_environment_alone_gives_the_same_settings_as_the_options():
    env = {"EXAMPLE_MODE": "wild", "EXAMPLE_COUNT": "8", "EXAMPLE_DATA": "/x.csv"}
    assert settings_from_environment(Example, env) == _parse([], env) \
        == Example(mode="wild", count=8, data=Path("/x.csv"))


@pytest.mark.parametrize("name", sorted(BUILTIN_DOMAINS))
def test_serve_env_help_lists_every_setting_of_every_domain(name):
    cls = domain_class(name)
    assert cls.settings_class is not None, f"{name} declares no settings class"
    result = CliRunner().invoke(serve_env, [name, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    for option in settings_options(cls.settings_class):
        assert option.opts[0] in text, f"{name}: {option.opts[0]} missing from --help"
        for variable in option.envvar:
            assert variable in text, f"{name}: {variable} missing from --help"
    for server_flag in ("--port", "--snapshot-key", "--snapshot-key-file", "--deadline"):
        assert server_flag in text


def test_a_refused_combination_is_a_usage_error_before_anything_starts():
    result = CliRunner().invoke(domain_command("coderunner"), ["--sandbox", "process"])
    assert result.exit_code == 2
    assert "--allow-insecure-sandbox" in result.output


def test_every_builtin_settings_class_builds_from_no_input():
    for name in BUILTIN_DOMAINS:
        settings_class = domain_class(name).settings_class
        assert dataclasses.is_dataclass(settings_class)
        assert settings_from_environment(settings_class, {}) == settings_class()
