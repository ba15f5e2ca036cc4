"""The rules of the Game of 24 (Tree-of-Thoughts formulation), exactly.

`judge(inputs, left, text)` checks one action against the puzzle's input
numbers and the numbers left, and returns a `Verdict`:
  * a step must use two numbers really left (as a multiset), be arithmetically
    right in exact fractions (no division by zero) and list the numbers left
    correctly (as a multiset). Leaving one number that is not 24 is a dead end
    (terminal, unsolved).
  * an answer must parse (safe parser) to use every input number exactly once
    and equal 24: then solved. A parsed but wrong answer is terminal, unsolved,
    and the observation says what is wrong.
Malformed or inapplicable actions are invalid (not terminal).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from env_servers.game24.actions import (
    ANSWER_EXAMPLE,
    ActionError,
    Answer,
    ArithmeticStep,
    parse_action,
)
from env_servers.game24.expression import DivisionByZero, Evaluation, ExpressionError, evaluate
from env_servers.game24.numbers import format_number, format_numbers

TARGET = Fraction(24)
_OPERATIONS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
}


@dataclass(frozen=True)
class Verdict:
    observation: str
    invalid: bool = False
    left: tuple[Fraction, ...] | None = None  # after a valid step
    step_text: str | None = None              # canonical form of a valid step
    terminated: bool = False
    solved: bool = False
    answer: str | None = None                 # the judged answer expression


def left_observation(left: Sequence[Fraction]) -> str:
    if len(left) == 1 and left[0] == TARGET:
        return "left: 24 (now give the Answer)"
    return f"left: {format_numbers(left)}"


def judge(inputs: Sequence[Fraction], left: Sequence[Fraction], text: str) -> Verdict:
    try:
        action = parse_action(text)
    except ActionError as error:
        return _invalid(str(error))
    if isinstance(action, Answer):
        return _judge_answer(inputs, action)
    return _judge_step(left, action)


def _invalid(reason: str) -> Verdict:
    return Verdict(observation=f"Invalid action: {reason.rstrip('.')}.", invalid=True)


def _judge_step(left: Sequence[Fraction], step: ArithmeticStep) -> Verdict:
    available = Counter(left)
    shown_left = format_numbers(left)
    if len(left) < 2:
        return _invalid(f"only {shown_left} is left; give the final `{ANSWER_EXAMPLE}`")
    for operand in dict.fromkeys([step.a, step.b]):
        needed = (step.a == operand) + (step.b == operand)
        if available[operand] < needed:
            if available[operand] == 0:
                return _invalid(
                    f"{format_number(operand)} is not among the numbers left ({shown_left})"
                )
            return _invalid(
                f"{format_number(operand)} is used twice but only one is left ({shown_left})"
            )
    expression = f"{format_number(step.a)} {step.op} {format_number(step.b)}"
    if step.op == "/" and step.b == 0:
        return _invalid(f"{expression} divides by zero")
    value = _OPERATIONS[step.op](step.a, step.b)
    if value != step.result:
        return _invalid(f"{expression} is {format_number(value)}, not {format_number(step.result)}")
    after = available - Counter([step.a, step.b]) + Counter([value])
    remaining = tuple(sorted(after.elements()))
    correction = ""
    if step.left is not None and Counter(step.left) != after:
        correction = f" (you wrote left: {format_numbers(step.left)})"
    step_text = f"{expression} = {format_number(value)} (left: {format_numbers(remaining)})"
    if len(remaining) == 1 and remaining[0] != TARGET:
        return Verdict(
            observation=f"left: {format_number(remaining[0])}. Dead end: the last number "
            f"is {format_number(remaining[0])}, not 24.",
            left=remaining,
            step_text=step_text,
            terminated=True,
        )
    return Verdict(observation=left_observation(remaining) + correction, left=remaining,
                   step_text=step_text)


def _judge_answer(inputs: Sequence[Fraction], answer: Answer) -> Verdict:
    evaluation, expression, reason = None, "", ""
    for candidate in answer.candidates:
        try:
            evaluation, expression = evaluate(candidate), candidate
            break
        except ExpressionError as error:
            reason = reason or str(error)
        except DivisionByZero:
            return _wrong(candidate, "it divides by zero")
    if evaluation is None:
        return _invalid(
            f"the answer is not an arithmetic expression ({reason}); write it like "
            f"`{ANSWER_EXAMPLE}`"
        )
    problems = _answer_problems(inputs, evaluation)
    if problems:
        return _wrong(expression, "; ".join(problems))
    return Verdict(
        observation=f"Correct: {expression} = 24.",
        terminated=True,
        solved=True,
        answer=expression,
    )


def _answer_problems(inputs: Sequence[Fraction], evaluation: Evaluation) -> list[str]:
    problems = []
    used, wanted = Counter(evaluation.numbers), Counter(inputs)
    if used != wanted:
        detail = []
        if wanted - used:
            detail.append(f"missing {format_numbers((wanted - used).elements())}")
        if used - wanted:
            detail.append(f"extra {format_numbers((used - wanted).elements())}")
        problems.append(
            f"it must use each input number exactly once ({format_numbers(inputs)}) "
            f"but uses {format_numbers(evaluation.numbers) or 'none'} ({', '.join(detail)})"
        )
    if evaluation.value != TARGET:
        problems.append(f"its value is {format_number(evaluation.value)}, not 24")
    return problems


def _wrong(expression: str, problem: str) -> Verdict:
    return Verdict(
        observation=f"Wrong answer: {expression}: {problem}.",
        terminated=True,
        answer=expression,
    )
