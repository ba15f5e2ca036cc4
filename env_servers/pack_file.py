"""Pack files: what a user tells an adapter about an environment it cannot describe.

An adapter (the OpenEnv bridge, the TextArena games) builds its Describe from
the environment's own metadata. A pack file, in TOML, replaces any part of it:

    name = "gridwalk"                 # Describe.name
    description = "..."               # Describe.description
    reward_mode = "oracle"            # none | oracle | honest
    max_steps = 12

    [reward_range]                    # min, max, success_threshold
    min = 0.0
    max = 1.0
    success_threshold = 1.0

    [action_grammar]                  # description, examples, pattern
    examples = ["up", "left"]

    [prompt_pack]                     # any PromptPack field (environment.proto)
    instructions = "..."
    act_template = "..."
    [prompt_pack.search_hints]
    max_depth = 10

Adapter-specific sections (e.g. `[openenv]`, `[tasks]`) are kept in `sections`
for the adapter to read. Every mistake is a `PackFileError` naming the file
and the key.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from google.protobuf import json_format

from lats_pb import environment_pb2
from lats_runtime.reward_modes import NAMES as REWARD_MODE_NAMES

COMMON_KEYS = ("name", "description", "reward_mode", "max_steps", "reward_range",
               "action_grammar", "prompt_pack")


class PackFileError(ValueError):
    """A pack file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class PackFile:
    """The parsed file; None / empty means "keep what the adapter derived"."""

    path: str = ""
    name: str | None = None
    description: str | None = None
    reward_mode: str | None = None
    max_steps: int | None = None
    reward_range: Mapping[str, float] = field(default_factory=dict)
    action_grammar: Mapping[str, Any] = field(default_factory=dict)
    prompt_pack: Mapping[str, Any] = field(default_factory=dict)
    sections: Mapping[str, Any] = field(default_factory=dict)

    def section(self, name: str) -> Mapping[str, Any]:
        """An adapter's own table (empty if the file has none)."""
        value = self.sections.get(name, {})
        if not isinstance(value, Mapping):
            raise PackFileError(f"{self.path}: [{name}] must be a table")
        return value

    def check_sections(self, known: tuple[str, ...]) -> None:
        """Refuses keys that neither the common part nor the adapter knows (typos)."""
        unknown = sorted(set(self.sections) - set(known))
        if unknown:
            raise PackFileError(
                f"{self.path}: unknown key(s) {', '.join(unknown)}; a pack file takes "
                f"{', '.join(COMMON_KEYS + known)}")

    def grammar(self, derived: environment_pb2.ActionGrammar) -> environment_pb2.ActionGrammar:
        """`derived` with the file's action_grammar keys replacing its own."""
        return self._merged(derived, self.action_grammar, "action_grammar")

    def rewards(self, derived: environment_pb2.RewardRange) -> environment_pb2.RewardRange:
        return self._merged(derived, self.reward_range, "reward_range")

    def pack(self, derived: environment_pb2.PromptPack) -> environment_pb2.PromptPack:
        return self._merged(derived, self.prompt_pack, "prompt_pack")

    def _merged(self, derived, overrides: Mapping[str, Any], table: str):
        merged = type(derived)()
        merged.CopyFrom(derived)
        if overrides:
            try:
                json_format.ParseDict(dict(overrides), merged)
            except json_format.ParseError as error:
                raise PackFileError(f"{self.path}: [{table}]: {error}") from None
        return merged


def load_pack_file(path: str | Path | None) -> PackFile:
    """The pack file at `path` (an empty PackFile for None)."""
    if path is None:
        return PackFile()
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise PackFileError(f"cannot read the pack file {path}: {error.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise PackFileError(f"{path} is not valid TOML: {error}") from None
    return parse_pack(data, str(path))


def parse_pack(data: Mapping[str, Any], path: str = "<pack>") -> PackFile:
    """A PackFile from already parsed TOML (or JSON) data."""
    def text(key: str) -> str | None:
        value = data.get(key)
        if value is not None and not (isinstance(value, str) and value.strip()):
            raise PackFileError(f"{path}: {key} must be a non-empty string")
        return value

    def table(key: str) -> dict:
        value = data.get(key, {})
        if not isinstance(value, Mapping):
            raise PackFileError(f"{path}: [{key}] must be a table")
        return dict(value)

    reward_mode = text("reward_mode")
    if reward_mode is not None and reward_mode not in REWARD_MODE_NAMES:
        raise PackFileError(f"{path}: reward_mode must be one of "
                            f"{', '.join(REWARD_MODE_NAMES)}, not {reward_mode!r}")
    max_steps = data.get("max_steps")
    if max_steps is not None and (type(max_steps) is not int or not 1 <= max_steps <= 10_000):
        raise PackFileError(f"{path}: max_steps must be a whole number from 1 to 10000")
    pack = PackFile(
        path=path, name=text("name"), description=text("description"),
        reward_mode=reward_mode, max_steps=max_steps, reward_range=table("reward_range"),
        action_grammar=table("action_grammar"), prompt_pack=table("prompt_pack"),
        sections={key: value for key, value in data.items() if key not in COMMON_KEYS})
    # Parse every table now, so a bad key fails at start-up, not on first use.
    pack.grammar(environment_pb2.ActionGrammar())
    pack.rewards(environment_pb2.RewardRange())
    pack.pack(environment_pb2.PromptPack())
    return pack
