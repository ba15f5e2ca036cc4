"""Renders a prompt pack's templates into chat messages.

The planner knows no domain: every word it sends to the model comes from the
environment's PromptPack (environment.proto documents the placeholders and
the chat turns). This module fills the placeholders from the search state and
nothing else: a prompt is the system message, the pack's few-shot turns, the
rendered template, and (with observation_turn) the trajectory as turns.
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
OBSERVATION_TURN_PLACEHOLDERS = frozenset({"step", "next", "observation"})
TURN_ROLES = frozenset({"user", "assistant"})


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
        """Raises PromptPackError if a template uses an unknown placeholder or a
        few-shot turn has a role other than user and assistant."""
        allowed = KNOWN_PLACEHOLDERS | set(self.pack.variables)
        for field in ("act_template", "value_template", "reflect_template",
                      "step_template", "reflection_template", "setup_template"):
            unknown = placeholders(getattr(self.pack, field)) - allowed - {"action", "observation", "index", "reflection"}
            if unknown:
                raise PromptPackError(f"{field} uses unknown placeholders {sorted(unknown)}")
        unknown = placeholders(self.pack.compare_template) - allowed - {"facet", "options"}
        if unknown:
            raise PromptPackError(f"compare_template uses unknown placeholders {sorted(unknown)}")
        unknown = placeholders(self.pack.observation_turn) - OBSERVATION_TURN_PLACEHOLDERS
        if unknown:
            raise PromptPackError(f"observation_turn uses unknown placeholders {sorted(unknown)}; "
                                  f"it may use {sorted(OBSERVATION_TURN_PLACEHOLDERS)}")
        for field in ("act_turns", "value_turns", "reflect_turns", "compare_turns"):
            roles = {turn.role for turn in getattr(self.pack, field)}
            if roles - TURN_ROLES:
                raise PromptPackError(f"{field} has turns of role {sorted(roles - TURN_ROLES)}; "
                                      f"use {' or '.join(sorted(TURN_ROLES))}")
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

    def _messages(self, template: str, turns=(), after: Messages = (), **values: str
                  ) -> Messages:
        """system (the instructions), the few-shot `turns`, the rendered template as
        a user message, then `after` (the trajectory's turns)."""
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
        system = (("system", self.pack.instructions),) if self.pack.instructions else ()
        examples = tuple((turn.role, turn.content) for turn in turns)
        return (*system, *examples, ("user", template.format(**variables)), *after)

    def trajectory_turns(self, node: Node) -> Messages:
        """The steps so far as chat turns: each action as the assistant's message, its
        observation as the user's (observation_turn)."""
        turns: list[tuple[str, str]] = []
        for i, step in enumerate(node.trajectory(), start=1):
            turns.append(("assistant", step.action))
            turns.append(("user", self.pack.observation_turn.format(
                step=i, next=i + 1, observation=step.observation)))
        return tuple(turns)

    def act(self, node: Node, reflections: Sequence[str]) -> Messages:
        if self.pack.observation_turn:
            return self._messages(
                self.pack.act_template, self.pack.act_turns, self.trajectory_turns(node),
                examples=self.pack.examples, reflections=self.reflections(reflections),
                step="1")
        return self._messages(
            self.pack.act_template, self.pack.act_turns,
            examples=self.pack.examples,
            trajectory=self.trajectory(node),
            reflections=self.reflections(reflections),
            step=str(node.depth + 1),
        )

    def value(self, node: Node, reflections: Sequence[str]) -> Messages:
        return self._messages(
            self.pack.value_template, self.pack.value_turns,
            examples=self.pack.value_examples,
            trajectory=self.trajectory(node),
            reflections=self.reflections(reflections),
            step=str(node.depth + 1),
        )

    def reflect(self, node: Node) -> Messages:
        return self._messages(
            self.pack.reflect_template, self.pack.reflect_turns,
            examples=self.pack.examples,
            trajectory=self.trajectory(node),
            outcome=node.observation,
            step=str(node.depth + 1),
        )

    def compare(self, facet: str, options: str) -> Messages:
        """Which of the `options` (labelled lines) is right for `facet` (planner.tie_break)."""
        return self._messages(self.pack.compare_template, self.pack.compare_turns,
                              facet=facet, options=options)

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
