"""WebShop actions, as in the paper's action table: `search[query]`,
`click[button text]`, and ReAct's `think[thought]`."""

from __future__ import annotations

import re
from dataclasses import dataclass

SEARCH, CLICK, THINK = "search", "click", "think"
_ACTION = re.compile(r"^\s*(?P<name>search|click|think)\s*\[(?P<argument>.*)\]\s*$",
                     re.IGNORECASE | re.DOTALL)
USAGE = "use search[query], click[button text] or think[thought]"


class ActionError(ValueError):
    """The text is not an action; the message says what to write instead."""


@dataclass(frozen=True)
class Action:
    name: str
    argument: str


def parse_action(text: str) -> Action:
    match = _ACTION.match(text)
    if not match:
        raise ActionError(f"{text.strip()[:80]!r} is not an action; {USAGE}")
    return Action(match.group("name").lower(), match.group("argument").strip())
