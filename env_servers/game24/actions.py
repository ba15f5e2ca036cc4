"""Parsing Game-of-24 actions as a small LLM writes them.

Two kinds of action:
  * a step      `13 - 9 = 4 (left: 4 4 10)`
  * an answer   `Answer: (6 - 4) * (4 + 8) = 24`
Tolerated: surrounding whitespace, backticks or bold markers, a leading
`Step 2:` / `- ` / `1.` , the operators `x X × ∗ ·` (times), `÷` (divide) and
`− – —` (minus), commas in the left list, and text after the closing
parenthesis. The `(left: ...)` list is read when it is there, but a step is
its arithmetic: a missing or unreadable list is no error, and the rules
correct a wrong one (small models get the arithmetic right far more often
than the bookkeeping). `parse_action` raises `ActionError` with a reason
otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from env_servers.game24.numbers import NUMBER_PATTERN, parse_number, parse_numbers

STEP_EXAMPLE = "4 + 8 = 12 (left: 4 6 12)"
ANSWER_EXAMPLE = "Answer: (6 - 4) * (4 + 8) = 24"

# Leading noise such as "Step 2:", "Next step:", "- ", "* ", "1. " (repeatable).
# RE2-compatible: the prompt pack publishes it as action_prefix_pattern.
PREFIX_PATTERN = (
    r"(?i)^\s*(?:(?:step\s*\d+\s*[:.)]|next\s+step\s*:|action\s*\d*\s*:"
    r"|\d+[.)]\s|[-*•>]\s)\s*)+"
)
_PREFIX = re.compile(PREFIX_PATTERN)
_SYMBOLS = str.maketrans({"×": "*", "∗": "*", "·": "*", "÷": "/", "−": "-", "–": "-",
                          "—": "-", "[": "(", "]": ")", "{": "(", "}": ")", "：": ":"})
_LETTER_TIMES = re.compile(r"(?<=[\d)\s])[xX](?=[\s\d(])")
_ANSWER = re.compile(r"(?i)^answer\s*:?\s*(?P<expression>.*)$", re.DOTALL)
_STEP = re.compile(
    rf"^(?P<a>{NUMBER_PATTERN})\s*(?P<op>[-+*/])\s*(?P<b>{NUMBER_PATTERN})"
    rf"\s*=\s*(?P<result>{NUMBER_PATTERN})(?P<rest>.*)$",
    re.DOTALL,
)
_LEFT = re.compile(r"(?i)\(\s*left\s*:?\s*(?P<numbers>[^)]*)\)")
_EXPRESSION_CHARS = re.compile(r"^[\d\s+\-*/().]*")


class ActionError(ValueError):
    """The text is not a well-formed action; the message says why."""


@dataclass(frozen=True)
class ArithmeticStep:
    a: Fraction
    op: str
    b: Fraction
    result: Fraction
    left: tuple[Fraction, ...] | None   # as written (None: left out); the rules check the move


@dataclass(frozen=True)
class Answer:
    candidates: tuple[str, ...]  # expression texts, most likely first


def normalize(text: str) -> str:
    """Strips formatting noise and maps operator look-alikes to + - * /."""
    noise = "`* \t\r\n"
    text = text.translate(_SYMBOLS).strip(noise)
    text = _PREFIX.sub("", text, count=1).strip(noise)
    return _LETTER_TIMES.sub("*", text)


def parse_action(text: str) -> ArithmeticStep | Answer:
    text = normalize(text)
    answer = _ANSWER.match(text)
    if answer:
        return _parse_answer(answer.group("expression"))
    step = _STEP.match(text)
    if not step:
        raise ActionError(
            f"expected one step like `{STEP_EXAMPLE}` or the final `{ANSWER_EXAMPLE}`"
        )
    left = _LEFT.search(step.group("rest"))
    try:
        numbers = tuple(parse_numbers(left.group("numbers"))) if left else None
    except ValueError:
        numbers = None                 # not a list of numbers: as if it were left out
    try:
        a, b, result = (parse_number(step.group(k)) for k in ("a", "b", "result"))
    except ValueError as error:
        raise ActionError(str(error)) from error
    return ArithmeticStep(a, step.group("op"), b, result, numbers)


def _parse_answer(text: str) -> Answer:
    """Keeps the arithmetic part of each side of `=`, dropping trailing prose.

    `(6 - 4) * (4 + 8) = 24` and `24 = (6 - 4) * (4 + 8)` both yield the
    expression first: a bare number (the claimed result) goes last.
    """
    sides = [_EXPRESSION_CHARS.match(side).group(0).strip() for side in text.split("=")]
    sides = [side.rstrip(".").strip() for side in sides if side.strip(" .")]
    if not sides:
        raise ActionError(
            "the answer is not an arithmetic expression (use only numbers, + - * / and "
            f"parentheses); write it like `{ANSWER_EXAMPLE}`"
        )
    expressions = [s for s in sides if not re.fullmatch(r"-?\d+", s)]
    numbers = [s for s in sides if re.fullmatch(r"-?\d+", s)]
    return Answer(tuple(expressions + numbers))
