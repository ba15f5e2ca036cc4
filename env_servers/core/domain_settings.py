"""Typed domain settings, and the command-line options they become.

A domain declares one frozen dataclass whose fields are made with `setting()`:
each names its help text and the environment variable(s) it falls back to.
`settings_options(cls)` turns the fields into click options (flag, type,
choices, default and variable shown in `--help`); `build_settings(cls, values)`
makes the instance from parsed values; `settings_from_environment(cls)` reads
the same variables without a command line (library use). So a domain is
configured one way, whatever starts it.

Field types understood: str (free, or one of `choices`), int, float, bool (a
`--x/--no-x` switch), Path, Path | None, tuple[Path, ...] (a repeatable flag;
its variable lists paths separated by os.pathsep).
"""

from __future__ import annotations

import dataclasses
import os
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

_METADATA_KEY = "lats_setting"


@dataclass(frozen=True)
class SettingSpec:
    """How one settings field appears on the command line."""

    help: str
    envvar: tuple[str, ...]
    flag: str | None = None
    choices: tuple[str, ...] | None = None
    min: float | None = None
    max: float | None = None
    min_open: bool = False
    must_exist: bool = False
    dir_okay: bool = True
    file_okay: bool = True


def setting(default: Any = dataclasses.MISSING, *, help: str, env: str | Sequence[str],
            default_factory: Any = dataclasses.MISSING, flag: str | None = None,
            choices: Sequence[str] | None = None, min: float | None = None,
            max: float | None = None, min_open: bool = False, must_exist: bool = False,
            dir_okay: bool = True, file_okay: bool = True) -> Any:
    """A dataclass field that is also a command-line option with an env-var fallback.

    `flag` defaults to `--field-name`; `env` is the variable (or variables,
    the first found wins) read when the flag is not given.
    """
    spec = SettingSpec(help=help, envvar=(env,) if isinstance(env, str) else tuple(env),
                       flag=flag, choices=tuple(choices) if choices else None, min=min,
                       max=max, min_open=min_open, must_exist=must_exist, dir_okay=dir_okay,
                       file_okay=file_okay)
    return dataclasses.field(default=default, default_factory=default_factory,
                             metadata={_METADATA_KEY: spec})


def _fields(settings_class: type) -> list[tuple[dataclasses.Field, SettingSpec, Any]]:
    hints = typing.get_type_hints(settings_class)
    found = []
    for item in dataclasses.fields(settings_class):
        spec = item.metadata.get(_METADATA_KEY)
        if spec is not None:
            found.append((item, spec, hints[item.name]))
    return found


def _without_none(annotation: Any) -> tuple[Any, bool]:
    """(the annotation without None, whether None was allowed)."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(members) == 1:
            return members[0], True
    return annotation, False


def _default(item: dataclasses.Field) -> Any:
    if item.default is not dataclasses.MISSING:
        return item.default
    if item.default_factory is not dataclasses.MISSING:
        return item.default_factory()
    return None


def _click_type(annotation: Any, spec: SettingSpec, name: str) -> tuple[Any, bool]:
    """(the click parameter type, whether the option is repeatable)."""
    annotation, _ = _without_none(annotation)
    if typing.get_origin(annotation) is tuple:
        inner = typing.get_args(annotation)[0]
        return _click_type(inner, spec, name)[0], True
    if annotation is bool:
        return click.BOOL, False
    if annotation is int:
        return click.IntRange(spec.min, spec.max, min_open=spec.min_open), False
    if annotation is float:
        return click.FloatRange(spec.min, spec.max, min_open=spec.min_open), False
    if annotation is Path:
        return click.Path(path_type=Path, exists=spec.must_exist, dir_okay=spec.dir_okay,
                          file_okay=spec.file_okay), False
    if annotation is str:
        if spec.choices:
            return click.Choice(spec.choices, case_sensitive=False), False
        return click.STRING, False
    raise TypeError(f"setting {name!r} has a type ({annotation!r}) that has no option form")


def settings_options(settings_class: type) -> list[click.Option]:
    """One click option per field made with `setting()`, in declaration order."""
    options = []
    for item, spec, annotation in _fields(settings_class):
        flag = spec.flag or "--" + item.name.replace("_", "-")
        click_type, multiple = _click_type(annotation, spec, item.name)
        default = _default(item)
        common = dict(help=spec.help, envvar=list(spec.envvar), show_envvar=True)
        if click_type is click.BOOL and not multiple:
            negative = "--no-" + flag[2:]
            option = click.Option([f"{flag}/{negative}", item.name], default=bool(default),
                                  show_default=True, **common)
        else:
            option = click.Option([flag, item.name], type=click_type, multiple=multiple,
                                  default=default, show_default=default not in (None, ()),
                                  **common)
        options.append(option)
    return options


def build_settings(settings_class: type, values: Mapping[str, Any]) -> Any:
    """The settings instance for parsed option values (None / () keep the default).

    A refused value or combination raises ValueError with the settings' message.
    """
    given: dict[str, Any] = {}
    for item, _, annotation in _fields(settings_class):
        value = values.get(item.name)
        if value is None or value == ():
            continue
        if typing.get_origin(_without_none(annotation)[0]) is tuple:
            value = tuple(value)
        given[item.name] = value
    return settings_class(**given)


def settings_from_environment(settings_class: type,
                              environ: Mapping[str, str] | None = None) -> Any:
    """The settings the environment variables alone describe, parsed exactly as the
    options parse them; a bad value raises ValueError naming the variable."""
    env = os.environ if environ is None else environ
    context = click.Context(click.Command("settings"))
    values: dict[str, Any] = {}
    for option in settings_options(settings_class):
        name = next((var for var in option.envvar if env.get(var)), None)
        if name is None:
            continue
        raw: Any = env[name]
        if option.multiple:
            raw = option.type.split_envvar_value(raw)
        try:
            values[option.name] = option.type_cast_value(context, raw)
        except click.BadParameter as error:
            raise ValueError(f"{name}: {error.message}") from None
    return build_settings(settings_class, values)
