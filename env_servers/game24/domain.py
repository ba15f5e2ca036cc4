"""The Game-of-24 `Domain` (Tree-of-Thoughts formulation).

State (JSON): `task_id`, `numbers` (the inputs) and `left` (numbers still to
combine) as exact fraction strings, `steps` (canonical valid steps so far),
`done`, `solved`, `answer` (the judged answer expression or null) and
`observation` (the latest one).

Rewards: 1 for a correct answer (terminal), 0 otherwise. A wrong answer or a
dead end (one number left that is not 24) is terminal with reward 0. Inline
tasks look like {"numbers": [4, 4, 6, 8]}.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from lats_pb import environment_pb2
from lats_runtime.quoting import quoted_list

from env_servers.core import (
    Domain,
    DomainDescription,
    InvalidRequest,
    InvalidTask,
    ResetOutcome,
    ScoreResult,
    State,
    StepOutcome,
    TaskSpec,
)
from env_servers.core.answer_keys import answer_key
from env_servers.game24.actions import ANSWER_EXAMPLE, STEP_EXAMPLE
from env_servers.game24.expression import DivisionByZero, ExpressionError, evaluate
from env_servers.game24.numbers import format_number, format_numbers, parse_number
from env_servers.game24.prompts import prompt_pack
from env_servers.game24.rules import judge
from env_servers.game24.settings import Game24Settings
from env_servers.game24.tasks import SPLITS, PuzzleSet

MAX_INLINE_NUMBERS = 6
MAX_INLINE_VALUE = 10_000

# The examples solve puzzle 4 4 6 8 (task game24/1076), as in the prompt pack.
GRAMMAR = environment_pb2.ActionGrammar(
    description=(
        f"One step `a op b = c (left: ...)` that combines two of the numbers left with "
        f"+ - * / (exact; fractions like 8/3 allowed) and lists every number left, e.g. "
        f"`{STEP_EXAMPLE}`; or the final `Answer: <expression> = 24` using each input "
        f"number exactly once, e.g. `{ANSWER_EXAMPLE}`."
    ),
    examples=[
        "4 + 8 = 12 (left: 4 6 12)",
        "6 - 4 = 2 (left: 2 12)",
        "2 * 12 = 24 (left: 24)",
        "Answer: (6 - 4) * (4 + 8) = 24",
    ],
    pattern=(
        r"^(?:Answer:.+|-?\d+(?:/\d+)?\s*[-+*/]\s*-?\d+(?:/\d+)?\s*=\s*"
        r"-?\d+(?:/\d+)?\s*\(left:[^)]*\).*)$"
    ),
)


class Game24Domain(Domain):
    name = "game24"
    version = "1.0.0"
    description = (
        "Game of 24 (Tree-of-Thoughts formulation): combine the input numbers with "
        "+ - * / two at a time until 24 is left, then give one expression that uses "
        "every input number once. Steps and answers are checked exactly with "
        "fractions; a correct answer scores 1."
    )

    settings_class = Game24Settings

    def __init__(self, settings: Game24Settings | None = None):
        self.settings = settings or Game24Settings()
        self.puzzles = PuzzleSet(self.settings.data)

    def describe(self) -> DomainDescription:
        return DomainDescription(
            capabilities=environment_pb2.Capabilities(inline_tasks=True, score=True),
            action_grammar=GRAMMAR,
            reward_range=environment_pb2.RewardRange(min=0, max=1, success_threshold=1),
            prompt_pack=prompt_pack(),
            splits=SPLITS,
            reward_mode="none",
            max_steps=8,
            max_action_bytes=4096,
            facts=environment_pb2.EnvironmentFacts(answer_keys=True, state_keys=True),
        )

    def list_tasks(self, split: str) -> list[str]:
        return self.puzzles.ids(split)

    def reset(self, task: TaskSpec, seed: int, options: Mapping[str, str]) -> ResetOutcome:
        if options:
            raise InvalidRequest(
                f"unknown option(s) {quoted_list(options)}: game24 takes no options"
            )
        if isinstance(task, str):
            numbers, task_id = self.puzzles.numbers(task), task
        else:
            numbers = _inline_numbers(task)
            task_id = "inline:" + " ".join(str(n) for n in numbers)
        observation = " ".join(str(n) for n in numbers)
        shown = [str(n) for n in numbers]
        state = {
            "task_id": task_id,
            "numbers": shown,
            "left": shown,
            "steps": [],
            "done": False,
            "solved": False,
            "answer": None,
            "observation": observation,
        }
        info = {"numbers": [int(n) for n in numbers]}
        return ResetOutcome(state, observation, task_id, info=info, state_key=_state_key(state))

    def step(self, state: State, action: str) -> StepOutcome:
        inputs = [parse_number(n) for n in state["numbers"]]
        left = [parse_number(n) for n in state["left"]]
        verdict = judge(inputs, left, action)
        if verdict.invalid:
            return StepOutcome(state, verdict.observation, invalid_action=True)
        new_state = dict(state, observation=verdict.observation)
        info: dict[str, Any] = {}
        if verdict.step_text is not None:
            new_state["left"] = [format_number(n) for n in verdict.left]
            new_state["steps"] = [*state["steps"], verdict.step_text]
            info["left"] = format_numbers(verdict.left)
        if verdict.terminated:
            new_state.update(done=True, solved=verdict.solved, answer=verdict.answer)
            info["solved"] = verdict.solved
        return StepOutcome(
            new_state,
            verdict.observation,
            reward=1.0 if verdict.solved else 0.0,
            terminated=verdict.terminated,
            info=info,
            answer_key=_answer_key(verdict.answer),
            state_key=_state_key(new_state),
        )

    def observation_of(self, state: State) -> str:
        return state["observation"]

    def check_state(self, state: State) -> None:
        """A blob's state has the shape `reset` and `step` make: numbers and the
        numbers left as numeric strings (no more left than given), steps as text."""
        try:
            numbers = [parse_number(n) for n in state["numbers"]]
            left = [parse_number(n) for n in state["left"]]
            well_formed = (
                isinstance(state["task_id"], str) and isinstance(state["observation"], str)
                and isinstance(state["steps"], list)
                and all(isinstance(step, str) for step in state["steps"])
                and isinstance(state["done"], bool) and isinstance(state["solved"], bool)
                and (state["answer"] is None or isinstance(state["answer"], str))
                and 1 <= len(left) <= len(numbers) <= 6
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise InvalidRequest(f"the blob's state is not a Game of 24 state ({error!s:.100})")
        if not well_formed:
            raise InvalidRequest("the blob's state is not a Game of 24 state (a field has the "
                                 "wrong type or size)")

    def score(self, state: State) -> ScoreResult:
        solved = bool(state.get("solved"))
        if solved:
            details = f"solved: {state['answer']} = 24"
        elif state.get("done"):
            details = f"not solved: {state['observation']}"
        else:
            details = "not solved: the episode has not reached an answer"
        return ScoreResult(
            score=1.0 if solved else 0.0,
            success=solved,
            metrics={"solved": 1.0 if solved else 0.0},
            details=details,
        )


def _inline_numbers(task: Mapping[str, Any]) -> tuple[int, ...]:
    """The whole numbers of an inline task {"numbers": [4, 4, 6, 8]} (or "4 4 6 8")."""
    if set(task) != {"numbers"}:
        raise InvalidTask('an inline game24 task is {"numbers": [4, 4, 6, 8]}')
    raw = task["numbers"]
    if isinstance(raw, str):
        raw = raw.split()
    try:
        values = [Fraction(str(v)) if not isinstance(v, float) else Fraction(v) for v in raw]
    except (TypeError, ValueError) as error:
        raise InvalidTask(f"inline numbers must be whole numbers: {error}") from error
    if not 2 <= len(values) <= MAX_INLINE_NUMBERS or any(
        v.denominator != 1 or not 0 <= v <= MAX_INLINE_VALUE for v in values
    ):
        raise InvalidTask(
            f"inline numbers must be 2 to {MAX_INLINE_NUMBERS} whole numbers from 0 to "
            f"{MAX_INLINE_VALUE}, e.g. [4, 4, 6, 8]"
        )
    return tuple(int(v) for v in values)


def _state_key(state: State) -> str:
    """What the rest of the game depends on: the numbers left (in any order; which
    two were combined to get there does not matter) and how it ended."""
    return answer_key("game24", sorted(state["left"], key=lambda n: parse_number(n)),
                      state["done"], state["solved"])


def _answer_key(expression: str | None) -> str:
    """An answer's identity: its value and the numbers it uses (every right answer
    shares one key, whatever its order of operations); "" for a step that is no answer."""
    if expression is None:
        return ""
    try:
        evaluation = evaluate(expression)
    except (ExpressionError, DivisionByZero):
        return answer_key("game24", "no value")
    return answer_key("game24", format_number(evaluation.value),
                      sorted(format_number(n) for n in evaluation.numbers))
