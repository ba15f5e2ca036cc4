"""ScriptedBackend: a zero-latency, deterministic model driven by rules.

Rules (from Python or a JSON file) are tried in order; the first that matches
answers. A rule matches when its optional `purpose` equals the request's
purpose, every `contains` substring is in the last user message, no
`not_contains` substring is, and every `anywhere` substring is in some message
of the conversation (a chat-turn pack puts the task in the episode's first user
message and only the latest observation in the last). Choice i of n is `responses[i % len(responses)]`,
cut at the first stop sequence (finish "stop") and then to max_tokens
whitespace-separated tokens (finish "length").

Token counts are approximate: whitespace-separated words of the messages
(prompt) and of each returned choice (completion).

The JSON file format is SCRIPT_FORMAT below (also shown by `lats serve
gateway --help`). A file with no rules and no default would answer nothing,
so it is refused.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import grpc

from llm_gateway.backends.base import (
    FINISH_LENGTH,
    FINISH_STOP,
    Backend,
    BackendError,
    Completion,
    GenerationRequest,
    GenerationResult,
)

RULE_FIELDS = {"name", "purpose", "contains", "not_contains", "anywhere", "greedy", "responses"}
FILE_FIELDS = {"rules", "default"}
# The purposes the planner sends (llm.proto GenerateRequest.purpose).
PURPOSES = ("act", "value", "reflect", "setup", "cot")

SCRIPT_FORMAT = """\
A rules file is JSON: a list of rules, or an object
{"rules": [RULE, ...], "default": "TEXT"} (keys starting with "_" are
comments). Rules are tried in order against each request; the first that
matches answers. A rule is an object:

  "responses"     non-empty list of strings (required); choice i of n is
                  responses[i % len], cut at the request's stop sequences.
                  Each request starts at responses[0]: the planner asks
                  its greedy first attempt (temperature 0, n=1) apart from
                  the n-1 samples, so both get responses[0] unless a
                  "greedy" rule tells them apart
  "contains"      strings that must all be in the prompt's last user message
  "not_contains"  strings that must not be in it
  "anywhere"      strings that must each be in some message of the
                  conversation (e.g. the task, or a reflection, when the
                  last user message is only the latest observation)
  "greedy"        true: only requests at temperature 0 (a greedy attempt,
                  or a value or reflection prompt); false: only sampled
                  ones; unset = either
  "purpose"       only requests of this purpose: act (one next action),
                  value (a score), reflect, setup (e.g. model-written
                  tests), cot (a whole answer at once); unset = any
  "name"          a label for error messages

"default" answers requests no rule matches; without it they fail
FAILED_PRECONDITION, quoting the end of the prompt (the way to write the
next rule). A file with no rules and no default is refused.

Example:
  {"rules": [
     {"purpose": "value", "responses": ["The score is 9"]},
     {"purpose": "act", "contains": ["Step 1: + 3"], "responses": ["+ 5"]},
     {"purpose": "act", "responses": ["+ 3", "- 5"]}],
   "default": "I cannot tell."}"""


@dataclass(frozen=True)
class ScriptRule:
    name: str
    responses: tuple[str, ...]
    purpose: str | None = None
    contains: tuple[str, ...] = ()
    not_contains: tuple[str, ...] = ()
    anywhere: tuple[str, ...] = ()
    greedy: bool | None = None

    def matches(self, purpose: str, prompt: str, messages: tuple[str, ...] = (),
                temperature: float = 1.0) -> bool:
        """`prompt` is the last user message; `messages` every message's content."""
        if self.purpose is not None and self.purpose != purpose:
            return False
        if self.greedy is not None and self.greedy != (temperature == 0.0):
            return False
        return (all(s in prompt for s in self.contains)
                and not any(s in prompt for s in self.not_contains)
                and all(any(s in m for m in messages) for s in self.anywhere))

    @classmethod
    def from_dict(cls, data: dict, index: int = 0) -> "ScriptRule":
        """Builds a rule from its JSON form; raises ValueError naming the rule."""
        if not isinstance(data, dict):
            raise ValueError(f"rule {index} must be an object")
        label = f"rule {index} ({data.get('name', 'unnamed')!r})"
        unknown = set(data) - RULE_FIELDS
        if unknown:
            raise ValueError(f"{label} has unknown fields {sorted(unknown)}; "
                             f"use {sorted(RULE_FIELDS)}")
        responses = data.get("responses")
        if (not isinstance(responses, list) or not responses
                or not all(isinstance(r, str) for r in responses)):
            raise ValueError(f"{label} needs 'responses': a non-empty list of strings")
        purpose = data.get("purpose")
        if purpose is not None and purpose not in PURPOSES:
            raise ValueError(f"{label} has purpose {purpose!r}, which the planner never sends; "
                             f"use one of {list(PURPOSES)}, or leave it out to match any")
        if "greedy" in data and not isinstance(data["greedy"], bool):
            raise ValueError(f"{label} field 'greedy' must be true or false")
        for field in ("contains", "not_contains", "anywhere"):
            value = data.get(field, [])
            if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
                raise ValueError(f"{label} field {field!r} must be a list of strings")
        return cls(
            name=str(data.get("name", f"rule-{index}")),
            responses=tuple(responses),
            purpose=purpose,
            contains=tuple(data.get("contains", [])),
            not_contains=tuple(data.get("not_contains", [])),
            anywhere=tuple(data.get("anywhere", [])),
            greedy=data.get("greedy"),
        )


class ScriptedBackend(Backend):
    """Answers from `rules`; `default` (if given) answers when none matches,
    otherwise an unmatched request fails with FAILED_PRECONDITION."""

    name = "scripted"

    def __init__(self, rules: list[ScriptRule | dict], default: str | None = None,
                 model: str = "scripted"):
        self._rules = [
            rule if isinstance(rule, ScriptRule) else ScriptRule.from_dict(rule, index)
            for index, rule in enumerate(rules)
        ]
        self._default = default
        self._model = model

    @classmethod
    def from_file(cls, path: str | Path) -> "ScriptedBackend":
        """Loads rules from a JSON file (SCRIPT_FORMAT); raises ValueError/OSError
        naming the path and what to fix."""
        path = Path(path)
        try:
            data = json.loads(path.read_text("utf-8"))
        except json.JSONDecodeError as error:
            raise ValueError(f"script {path} is not valid JSON: {error}") from error
        default = None
        if isinstance(data, dict):
            unknown = sorted(k for k in data if k not in FILE_FIELDS and not k.startswith("_"))
            if unknown:
                raise ValueError(f"script {path} has unknown keys {unknown}; use 'rules' and "
                                 "'default' (keys starting with '_' are comments)")
            default = data.get("default")
            data = data.get("rules", [])
            if default is not None and not isinstance(default, str):
                raise ValueError(f"script {path}: 'default' must be a string")
        if not isinstance(data, list):
            raise ValueError(f"script {path} must hold a list of rules or "
                             '{"rules": [...], "default": "..."}')
        if not data and default is None:
            raise ValueError(f"script {path} has no rules and no default, so it would answer "
                             "nothing; add rules or a \"default\" response (the format: "
                             "`lats serve gateway --help`)")
        try:
            return cls(data, default=default)
        except ValueError as error:
            raise ValueError(f"script {path}: {error}") from error

    @property
    def model(self) -> str:
        return self._model

    @property
    def rules(self) -> list[ScriptRule]:
        return list(self._rules)

    async def generate(self, request: GenerationRequest) -> GenerationResult:
        prompt = last_user_message(request)
        messages = tuple(content for _, content in request.messages)
        responses = self._responses_for(request.purpose, prompt, messages, request.temperature)
        choices = [
            truncate(responses[i % len(responses)], request.stop, request.max_tokens)
            for i in range(request.n)
        ]
        return GenerationResult(
            choices=choices,
            prompt_tokens=sum(count_tokens(content) for _, content in request.messages),
            completion_tokens=sum(count_tokens(c.text) for c in choices),
            model=request.model or self._model,
        )

    def _responses_for(self, purpose: str, prompt: str, messages: tuple[str, ...] = (),
                       temperature: float = 1.0) -> tuple[str, ...]:
        for rule in self._rules:
            if rule.matches(purpose, prompt, messages, temperature):
                return rule.responses
        if self._default is not None:
            return (self._default,)
        raise BackendError(
            grpc.StatusCode.FAILED_PRECONDITION,
            f"no scripted rule matched (purpose {purpose!r}, {len(self._rules)} "
            f"rules); the prompt ends with: {prompt[-200:]!r}",
        )


def last_user_message(request: GenerationRequest) -> str:
    """The content of the last user message (the last message if none is)."""
    for role, content in reversed(request.messages):
        if role == "user":
            return content
    return request.messages[-1][1] if request.messages else ""


def count_tokens(text: str) -> int:
    """Approximate token count: whitespace-separated words."""
    return len(text.split())


def truncate(text: str, stop: tuple[str, ...], max_tokens: int) -> Completion:
    """Cuts `text` at the earliest stop sequence, then to `max_tokens` words."""
    cuts = [text.find(s) for s in stop if s and s in text]
    if cuts:
        text = text[: min(cuts)]
    if max_tokens > 0:
        words = list(re.finditer(r"\S+", text))
        if len(words) > max_tokens:
            return Completion(text[: words[max_tokens - 1].end()], FINISH_LENGTH)
    return Completion(text, FINISH_STOP)
