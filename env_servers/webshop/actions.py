"""WebShop actions, as in the paper's action table: `search[query]`,
`click[button text]`, and ReAct's `think[thought]`."""

from __future__ import annotations

import re
from dataclasses import dataclass

SEARCH, CLICK, THINK = "search", "click", "think"
_ACTION = re.compile(r"^\s*(?P<name>search|click|think)\s*\[(?P<argument>.*)\]\s*$",
                     re.IGNORECASE | re.DOTALL)
# As small models write them: a verb anywhere (after "Action:", in backticks, with
# text around it), or a bare [button] standing for click[button].
_ANYWHERE = re.compile(r"(?<![A-Za-z])(?P<name>search|click|think)\s*\[(?P<argument>[^\]\n]*)\]",
                       re.IGNORECASE)
# Cut short (the model ran out of tokens inside the brackets): the rest of the line.
_UNCLOSED = re.compile(r"(?<![A-Za-z])(?P<name>search|click|think)\s*\[(?P<argument>[^\[\]\n]+)$",
                       re.IGNORECASE)
_BARE_BUTTON = re.compile(r"^[\s`*]*(?:action\s*\d*\s*:\s*)?\[(?P<argument>[^\[\]\n]+)\][\s`*.]*$",
                          re.IGNORECASE)
USAGE = "use search[query], click[button text] or think[thought]"


class ActionError(ValueError):
    """The text is not an action; the message says what to write instead."""


@dataclass(frozen=True)
class Action:
    name: str
    argument: str


def parse_action(text: str) -> Action:
    """The action `text` states: exactly `verb[argument]`, else the first
    `verb[argument]` in it (single-line argument), else one cut short at the end
    (`think[I should` reads as think[I should]), else a lone `[button]` as a click."""
    match = _ACTION.match(text) or _ANYWHERE.search(text) or _UNCLOSED.search(text.rstrip())
    if match:
        return Action(match.group("name").lower(), match.group("argument").strip())
    bare = _BARE_BUTTON.match(text)
    if bare:
        return Action(CLICK, bare.group("argument").strip())
    raise ActionError(f"{text.strip()[:80]!r} is not an action; {USAGE}, e.g. "
                      "search[red running shoes] or click[Buy Now]")
