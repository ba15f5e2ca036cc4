"""Renders a prompt pack's templates into chat messages.

The planner knows no domain: every word it sends to the model comes from the
environment's PromptPack (environment.proto documents the placeholders). This
module fills the placeholders from the search state and nothing else.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from dataclasses import dataclass

from lats_pb import environment_pb2

from planner.tree import Node

Messages = tuple[tuple[str, str], ...]

KNOWN_PLACEHOLDERS = frozenset(
    {"instructions", "examples", "task", "trajectory", "reflections", "step", "outcome"}
)


class PromptPackError(ValueError):
    """The environment's prompt pack cannot be used (says which template and why)."""


def placeholders(template: str) -> set[str]:
    """Names of the {placeholders} in a str.format-style template."""
    try:
        return {name for _, name, _, _ in string.Formatter().parse(template) if name}
    except ValueError as exc:
        raise PromptPackError(f"template is malformed ({exc}); double literal braces") from exc


@dataclass(frozen=True)
class PromptRenderer:
    """Builds act / value / reflect / setup messages from a prompt pack."""

    pack: environment_pb2.PromptPack
    task: str

    def validate(self) -> None:
        """Raises PromptPackError if a template uses an unknown placeholder."""
        allowed = KNOWN_PLACEHOLDERS | set(self.pack.variables)
        for field in ("act_template", "value_template", "reflect_template",
                      "step_template", "reflection_template", "setup_template"):
            unknown = placeholders(getattr(self.pack, field)) - allowed - {"action", "observation", "index", "reflection"}
            if unknown:
                raise PromptPackError(f"{field} uses unknown placeholders {sorted(unknown)}")
        if not self.pack.act_template:
            raise PromptPackError("the prompt pack has no act_template")

    def trajectory(self, node: Node) -> str:
        template = self.pack.step_template or "{action}\n{observation}\n"
        return "".join(
            template.format(step=i, action=n.action, observation=n.observation,
                            reflection=n.reflection)
            for i, n in enumerate(node.trajectory(), start=1)
        )

    def reflections(self, reflections: Sequence[str]) -> str:
        if not reflections:
            return ""
        template = self.pack.reflection_template or "{reflection}\n"
        body = "".join(
            template.format(index=i, reflection=text)
            for i, text in enumerate(reflections, start=1)
        )
        return self.pack.reflections_header + body

    def _messages(self, template: str, **values: str) -> Messages:
        variables = {
            "instructions": self.pack.instructions,
            "task": self.task,
            "step": "",
            "outcome": "",
            "trajectory": "",
            "reflections": "",
            **dict(self.pack.variables),
            **values,
        }
        user = template.format(**variables)
        if self.pack.instructions:
            return (("system", self.pack.instructions), ("user", user))
        return (("user", user),)

    def act(self, node: Node, reflections: Sequence[str]) -> Messages:
        return self._messages(
            self.pack.act_template,
            examples=self.pack.examples,
            trajectory=self.trajectory(node),
            reflections=self.reflections(reflections),
            step=str(node.depth + 1),
        )

    def value(self, node: Node, reflections: Sequence[str]) -> Messages:
        return self._messages(
            self.pack.value_template,
            examples=self.pack.value_examples,
            trajectory=self.trajectory(node),
            reflections=self.reflections(reflections),
            step=str(node.depth + 1),
        )

    def reflect(self, node: Node) -> Messages:
        return self._messages(
            self.pack.reflect_template,
            examples=self.pack.examples,
            trajectory=self.trajectory(node),
            outcome=node.observation,
            step=str(node.depth + 1),
        )

    def setup(self) -> Messages:
        return self._messages(self.pack.setup_template, examples=self.pack.examples)


def clean_action(text: str, prefix_pattern: str = "") -> str:
    """A sampled completion as an action: trimmed, without the pack's prefix."""
    action = text.strip()
    if prefix_pattern:
        action = re.sub(prefix_pattern, "", action, count=1).strip()
    return action


def action_key(action: str) -> str:
    """The identity used for self-consistency: actions equal up to whitespace."""
    return " ".join(action.split())
