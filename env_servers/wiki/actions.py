"""Parsing ReAct actions as a language model writes them.

An action is `Search[entity]`, `Lookup[keyword]` or `Finish[answer]`. The
text may carry the step's thought around it, as the prompt pack asks:

    Thought 2: It does not mention the eastern sector. I need to look it up.
    Action 2: Lookup[eastern sector]

Tolerated: any case for the verb, markdown bold or backticks, a space before
the bracket, parentheses instead of brackets, quotes around the argument,
text before and after (parentheses only on an Action line or when the text
starts with the verb). An explicit `Action N:` line wins; without one, the
first `Verb[...]` in the text counts. `parse_action` raises `ActionError`
with a reason otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

VERBS = ("search", "lookup", "finish")
GRAMMAR_HINT = "Search[entity], Lookup[keyword] or Finish[answer]"
# RE2-compatible: Describe publishes it as the grammar's pattern.
ACTION_PATTERN = r"(?i)(?:search|lookup|finish)\s*[\[(]"

_CALL = re.compile(
    r"(?i)\b(?P<verb>search|lookup|finish)\s*(?:\[(?P<square>[^\]\n]*)\]|\((?P<round>[^\n]*)\))"
)
_SQUARE_CALL = re.compile(r"(?i)\b(?P<verb>search|lookup|finish)\s*\[(?P<square>[^\]\n]*)\]")
_ACTION_LINE = re.compile(r"(?im)^[\s*`#>-]*action\s*\d*\s*[*`]*\s*[:：]\s*(?P<body>.*)$")
_QUOTES = "\"'`“”‘’"


class ActionError(ValueError):
    """The text holds no well-formed action; the message says why."""


@dataclass(frozen=True)
class Action:
    verb: str       # "search" | "lookup" | "finish"
    argument: str

    def __str__(self) -> str:
        return f"{self.verb.capitalize()}[{self.argument}]"


def _argument(match: re.Match) -> str:
    raw = match.group("square")
    if raw is None and "round" in match.re.groupindex:
        raw = match.group("round")
    return raw.strip().strip(_QUOTES).strip()


def find_action(text: str) -> Action | None:
    """The action the text states, or None if it states none."""
    text = text.replace("**", "")
    for line in _ACTION_LINE.finditer(text):
        call = _CALL.search(line.group("body"))
        if call:
            return Action(call.group("verb").lower(), _argument(call))
    # Without an Action line, parentheses count only when the text starts
    # with the verb ("search (again) for X" in a thought is not an action).
    call = _CALL.match(text.strip(" `*\n")) or _SQUARE_CALL.search(text)
    return Action(call.group("verb").lower(), _argument(call)) if call else None


def parse_action(text: str) -> Action:
    action = find_action(text)
    if action is None:
        raise ActionError("no action found")
    if not action.argument:
        what = {"search": "an entity", "lookup": "a keyword", "finish": "an answer"}[action.verb]
        raise ActionError(f"{action.verb.capitalize()}[] is empty; put {what} in the brackets")
    return action


def invalid_observation(reason: str) -> str:
    return (f"Invalid action: {reason.rstrip('.')}. End your reply with one action line, "
            f"such as `Action: Search[Ed Wood]`, `Action: Lookup[born]` or "
            f"`Action: Finish[yes]`; the actions are {GRAMMAR_HINT}.")
