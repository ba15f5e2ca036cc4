"""A safe evaluator for arithmetic answers: never `eval`.

The text is parsed with `ast.parse(mode="eval")` and only these nodes are
walked: whole-number literals, binary + - * /, unary - and +, and parentheses
(which leave no node). Anything else (names, calls, attributes, subscripts,
`**`, `//`, `%`, comparisons, strings, decimals) raises `ExpressionError`
before any arithmetic happens. Arithmetic is exact (`Fraction`).
"""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass
from fractions import Fraction

MAX_EXPRESSION_CHARS = 500
MAX_LITERAL = 10**9

_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos}


class ExpressionError(ValueError):
    """The text is not a plain arithmetic expression (a parse failure)."""


class DivisionByZero(ArithmeticError):
    """The expression is well-formed but divides by zero."""


@dataclass(frozen=True)
class Evaluation:
    value: Fraction
    numbers: tuple[Fraction, ...]  # the literals, in reading order


def evaluate(text: str) -> Evaluation:
    """Value and literals of `text`; `ExpressionError` / `DivisionByZero`."""
    text = text.strip()
    if not text:
        raise ExpressionError("the expression is empty")
    if len(text) > MAX_EXPRESSION_CHARS:
        raise ExpressionError(f"the expression is longer than {MAX_EXPRESSION_CHARS} characters")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        raise ExpressionError(f"{text!r} is not an arithmetic expression") from error
    numbers: list[Fraction] = []
    value = _value(tree.body, numbers)
    return Evaluation(value, tuple(numbers))


def _value(node: ast.AST, numbers: list[Fraction]) -> Fraction:
    if isinstance(node, ast.Constant):
        return _literal(node, numbers)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left = _value(node.left, numbers)
        right = _value(node.right, numbers)
        if isinstance(node.op, ast.Div) and right == 0:
            raise DivisionByZero("the expression divides by zero")
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_value(node.operand, numbers))
    shown = type(getattr(node, "op", node)).__name__
    raise ExpressionError(
        f"{shown} is not allowed: use only numbers, + - * / and parentheses"
    )


def _literal(node: ast.Constant, numbers: list[Fraction]) -> Fraction:
    value = node.value
    if isinstance(value, bool) or not isinstance(value, int):
        raise ExpressionError(
            f"{value!r} is not allowed: use the whole numbers of the puzzle"
        )
    if abs(value) > MAX_LITERAL:
        raise ExpressionError(f"{value} is too large to be a puzzle number")
    number = Fraction(value)
    numbers.append(number)
    return number
