"""Exact numbers for the Game of 24: parsing and printing `Fraction`s.

Numbers are written as integers (`12`, `-4`), fractions (`8/3`) or decimals
(`2.5`); printed canonically as integers or `p/q`. Lists print sorted by value,
space-separated, as in `left: 4 6 12`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from fractions import Fraction

NUMBER_PATTERN = r"-?\d{1,12}(?:\.\d{1,12})?(?:/\d{1,12})?"
_NUMBER = re.compile(rf"^{NUMBER_PATTERN}$")
_SEPARATORS = re.compile(r"[\s,;]+")


def parse_number(text: str) -> Fraction:
    """`12`, `-4`, `8/3`, `2.5` -> Fraction; ValueError if not such a number."""
    text = text.strip()
    if not _NUMBER.match(text):
        raise ValueError(f"{text!r} is not a number")
    numerator, _, denominator = text.partition("/")
    value = Fraction(numerator)
    if denominator:
        if int(denominator) == 0:
            raise ValueError(f"{text!r} divides by zero")
        value /= Fraction(denominator)
    return value


def parse_numbers(text: str) -> list[Fraction]:
    """A whitespace- or comma-separated list of numbers."""
    return [parse_number(part) for part in _SEPARATORS.split(text.strip()) if part]


def format_number(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    return f"{value.numerator}/{value.denominator}"


def format_numbers(values: Iterable[Fraction]) -> str:
    return " ".join(format_number(v) for v in sorted(values))
