"""Text actions to OpenEnv actions, OpenEnv observations to text.

Our protocol's actions are free text; an OpenEnv action is a JSON object that
its server validates against the action schema it publishes (GET /schema).
`ActionCodec` decides from that schema how a text becomes an action:

  * one field (besides `metadata`), or the field a pack file names: the text
    fills it (a string field takes the text as it is; any other type takes
    the text parsed as JSON, e.g. "7" for an integer);
  * several fields: the text must be the whole action as a JSON object.

An enum field gives the grammar its examples and pattern, and so do the
schema's own `examples`. `ObservationView`
renders an observation's fields (all but done, reward and metadata, in the
schema's order, or the ones a pack file lists) as the text the planner sees.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lats_pb import environment_pb2

OBSERVATION_SKIPPED = ("done", "reward", "metadata")
MAX_EXAMPLES = 8


class SchemaProblem(ValueError):
    """The action schema cannot be mapped to text actions (says what to configure)."""


def _properties(schema: Mapping[str, Any]) -> dict[str, Any]:
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        raise SchemaProblem("the action schema has no properties")
    return {name: spec for name, spec in properties.items() if name != "metadata"}


def _enum(spec: Mapping[str, Any]) -> list:
    if isinstance(spec.get("enum"), list):
        return list(spec["enum"])
    if "const" in spec:
        return [spec["const"]]
    for option in spec.get("anyOf", []) or spec.get("oneOf", []):
        if isinstance(option, Mapping) and ("enum" in option or "const" in option):
            return _enum(option)
    return []


def _is_text(spec: Mapping[str, Any]) -> bool:
    return spec.get("type") == "string" or all(isinstance(v, str) for v in _enum(spec) or [0])


@dataclass(frozen=True)
class ActionCodec:
    """How text becomes an action of one OpenEnv environment."""

    field: str | None                  # None: the text is the whole action as JSON
    text_field: bool                   # the field takes the text as it is
    choices: tuple[str, ...]
    fields: Mapping[str, Any]          # the schema's properties (metadata aside)
    shown: tuple[str, ...] = ()        # example actions the schema itself gives

    @classmethod
    def from_schema(cls, schema: Mapping[str, Any], field: str | None = None) -> ActionCodec:
        properties = _properties(schema)
        if field is not None and field not in properties:
            raise SchemaProblem(f"the action has no field {field!r}; its fields are "
                                f"{', '.join(properties) or 'none'}")
        if field is None and len(properties) == 1:
            field = next(iter(properties))
        if field is None:
            shown = tuple(json.dumps(example, sort_keys=True) for example in
                          schema.get("examples", []) if isinstance(example, Mapping))
            return cls(None, False, (), properties, shown)
        spec = properties[field]
        text = _is_text(spec)
        choices = tuple(str(v) for v in _enum(spec)) if text else ()
        shown = tuple(example if text and isinstance(example, str) else json.dumps(example)
                      for example in spec.get("examples", []) or [])
        return cls(field, text, choices, properties, shown)

    def encode(self, text: str) -> dict[str, Any] | str:
        """The action for `text`, or a message saying why it is not one."""
        if self.field is not None and self.text_field:
            return {self.field: text}
        try:
            value = json.loads(text)
        except json.JSONDecodeError as error:
            what = (f"the value of {self.field!r} as JSON" if self.field
                    else "a JSON object with the action's fields")
            return f"not an action: expected {what} ({error.msg} at character {error.pos})"
        if self.field is not None:
            return {self.field: value}
        if not isinstance(value, dict):
            return "not an action: expected a JSON object with the action's fields"
        return value

    def grammar(self, examples: Sequence[str]) -> environment_pb2.ActionGrammar:
        """The derived grammar; `examples` come from the pack file when given."""
        examples = (list(examples) or list(self.choices[:MAX_EXAMPLES])
                    or list(self.shown[:MAX_EXAMPLES]))
        pattern = ""
        if self.field is None:
            listed = ", ".join(f"{name} ({spec.get('type', 'any')})"
                               for name, spec in self.fields.items())
            description = f"One action as a JSON object with the fields {listed}."
        else:
            spec = self.fields[self.field]
            about = spec.get("description") or spec.get("title") or self.field
            if self.choices:
                description = (f"One of {', '.join(self.choices)}: the action's "
                               f"`{self.field}` ({about}).")
                pattern = "^(?:" + "|".join(re.escape(c) for c in self.choices) + ")$"
            elif self.text_field:
                description = f"Free text, sent as the action's `{self.field}` ({about})."
            else:
                description = (f"A JSON value of type {spec.get('type', 'any')}, sent as the "
                               f"action's `{self.field}` ({about}).")
        if not examples:
            raise SchemaProblem(
                "the action schema shows no example action; give some in the pack file: "
                "[action_grammar] examples = [...]")
        return environment_pb2.ActionGrammar(description=description, examples=examples,
                                             pattern=pattern)


@dataclass(frozen=True)
class ObservationView:
    """Which observation fields the planner sees, in which order."""

    fields: tuple[str, ...] = ()       # empty: every field, in the observation's order

    @classmethod
    def from_schema(cls, schema: Mapping[str, Any], fields: Sequence[str] = ()) -> ObservationView:
        known = [name for name in (schema.get("properties") or {})
                 if name not in OBSERVATION_SKIPPED]
        unknown = [name for name in fields if name not in known]
        if unknown:
            raise SchemaProblem(f"the observation has no field(s) {', '.join(unknown)}; its "
                                f"fields are {', '.join(known) or 'none'}")
        return cls(tuple(fields) or tuple(known))

    def render(self, observation: Mapping[str, Any]) -> str:
        names = [n for n in self.fields if n in observation] or [
            n for n in observation if n not in OBSERVATION_SKIPPED]
        if len(names) == 1:
            return _text(observation[names[0]])
        parts = []
        for name in names:
            value = _text(observation[name])
            parts.append(f"{name}:\n{value}" if "\n" in value else f"{name}: {value}")
        return "\n".join(parts)


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
