"""Game-of-24 steps and answers, checked exactly, through the domain's step()."""

from __future__ import annotations

import copy
import json

import pytest


def start(game24, numbers):
    return game24.reset({"numbers": numbers}, 0, {}).state


def play(game24, state, *actions):
    """Applies actions (each must be valid); returns the last outcome."""
    outcome = None
    for action in actions:
        outcome = game24.step(state, action)
        assert not outcome.invalid_action, outcome.observation
        state = outcome.state
    return outcome


def test_fraction_steps_are_exact(game24):
    state = start(game24, [3, 3, 8, 8])
    outcome = play(game24, state, "8 / 3 = 8/3 (left: 3 8 8/3)")
    assert outcome.observation == "left: 8/3 3 8"
    assert outcome.state["left"] == ["8/3", "3", "8"]
    outcome = play(game24, outcome.state, "3 - 8/3 = 1/3 (left: 1/3 8)",
                   "8 / 1/3 = 24 (left: 24)")
    assert outcome.observation.startswith("left: 24") and not outcome.terminated
    final = game24.step(outcome.state, "Answer: 8 / (3 - 8 / 3) = 24")
    assert (final.reward, final.terminated, final.invalid_action) == (1.0, True, False)
    assert final.observation == "Correct: 8 / (3 - 8 / 3) = 24."


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ("13 - 5 = 8 (left: 4 8 9 10)", "5 is not among the numbers left (4 9 10 13)"),
        ("10 - 9 = 2 (left: 2 4 13)", "10 - 9 is 1, not 2"),
        ("4 + 4 = 8 (left: 8 9 10 13)", "4 is used twice but only one is left"),
        ("hello there", "expected one step like"),
        ("Answer: sqrt(16) * 6", "not an arithmetic expression"),
        ("Answer: 4 ** 2 + 9 - 10 + 13 / 13", "Pow is not allowed"),
    ],
)
def test_invalid_steps_say_why_and_change_nothing(game24, action, reason):
    state = start(game24, [4, 9, 10, 13])
    before = copy.deepcopy(state)
    outcome = game24.step(state, action)
    assert outcome.invalid_action and not outcome.terminated and outcome.reward == 0
    assert outcome.observation.startswith("Invalid action: ")
    assert reason in outcome.observation
    assert state == before


def test_the_brief_example_observation(game24):
    state = start(game24, [4, 9, 10, 13])
    assert game24.step(state, "13 - 9 = 5 (left: 4 5 10)").observation == (
        "Invalid action: 13 - 9 is 4, not 5."
    )
    assert game24.step(state, "13 - 9 = 4 (left: 4 4 10)").observation == "left: 4 4 10"


def test_division_by_zero_is_invalid(game24):
    state = start(game24, [0, 4, 6, 8])
    outcome = game24.step(state, "4 / 0 = 0 (left: 0 6 8)")
    assert outcome.invalid_action and "divides by zero" in outcome.observation


def test_left_list_is_a_multiset_in_any_order(game24):
    state = start(game24, [4, 4, 6, 8])
    outcome = play(game24, state, "4 + 8 = 12 (left: 12, 6, 4)")
    assert outcome.state["left"] == ["4", "6", "12"]


def test_dead_end_terminates_without_reward(game24):
    state = start(game24, [1, 2])
    outcome = play(game24, state, "1 + 2 = 3 (left: 3)")
    assert outcome.terminated and outcome.reward == 0
    assert "Dead end" in outcome.observation and "3, not 24" in outcome.observation
    assert not game24.score(outcome.state).success


def test_after_reaching_24_only_the_answer_is_left(game24):
    state = start(game24, [4, 6])
    outcome = play(game24, state, "4 * 6 = 24 (left: 24)")
    assert not outcome.terminated
    again = game24.step(outcome.state, "24 - 0 = 24 (left: 24)")
    assert again.invalid_action and "Answer" in again.observation


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ("Answer: 4 * 4 + 6 + 8 = 24", "its value is 30, not 24"),
        ("Answer: (4 + 4) * (8 - 6) * 8 / 8 = 24", "extra 8"),
        ("Answer: 4 * 6 + 4 - 4 = 24", "uses 4 4 4 6 (missing 8, extra 4)"),
        ("Answer: 4 * 6 = 24", "missing 4 8"),
        ("Answer: 4 / (4 - 4) + 6 + 8 = 24", "divides by zero"),
    ],
)
def test_wrong_answers_end_the_episode_and_say_what_is_wrong(game24, answer, problem):
    state = start(game24, [4, 4, 6, 8])
    outcome = game24.step(state, answer)
    assert outcome.terminated and outcome.reward == 0 and not outcome.invalid_action
    assert outcome.observation.startswith("Wrong answer: ")
    assert problem in outcome.observation
    score = game24.score(outcome.state)
    assert not score.success and score.metrics == {"solved": 0.0}


@pytest.mark.parametrize(
    "action",
    [
        "  4 + 8 = 12 (left: 4 6 12)  ",
        "Step 1: 4 + 8 = 12 (left: 4 6 12)",
        "step 1. 4 + 8 = 12 (left: 4 6 12)",
        "- 4 + 8 = 12 (left: 4 6 12)",
        "1. 4 + 8 = 12 (left: 4 6 12)",
        "`4 + 8 = 12 (left: 4 6 12)`",
        "**Step 1:** 4 + 8 = 12 (left: 4 6 12)",
        "4+8=12 (left: 4 6 12) because 4 + 8 is 12",
        "4 + 8 = 12 (Left: 4, 6, 12)",
    ],
)
def test_tolerant_step_formatting(game24, action):
    outcome = game24.step(start(game24, [4, 4, 6, 8]), action)
    assert not outcome.invalid_action, outcome.observation
    assert outcome.observation == "left: 4 6 12"


@pytest.mark.parametrize(
    ("action", "left"),
    [
        ("4 x 6 = 24 (left: 4 8 24)", "4 8 24"),
        ("4 × 6 = 24 (left: 4 8 24)", "4 8 24"),
        ("8 ÷ 4 = 2 (left: 2 4 6)", "2 4 6"),
        ("4 − 8 = -4 (left: -4 4 6)", "-4 4 6"),
        ("4 / 6 = 2/3 (left: 2/3 4 8)", "2/3 4 8"),
    ],
)
def test_operator_look_alikes_and_fractions(game24, action, left):
    outcome = game24.step(start(game24, [4, 4, 6, 8]), action)
    assert outcome.observation == f"left: {left}", outcome.observation


@pytest.mark.parametrize(
    "answer",
    [
        "Answer: (6 - 4) * (4 + 8) = 24",
        "answer: (6 − 4) × (4 + 8) = 24",
        "Step 4: Answer: (6 - 4) x (4 + 8) = 24",
        "Answer: (6 - 4) * (4 + 8) = 24. This uses every number once.",
        "Answer: (6 - 4) * (4 + 8)",
        "Answer: 24 = (6 - 4) * (4 + 8)",
        "Answer: [(6 - 4) * (4 + 8)] = 24",
    ],
)
def test_tolerant_answer_formatting(game24, answer):
    outcome = game24.step(start(game24, [4, 4, 6, 8]), answer)
    assert (outcome.reward, outcome.terminated) == (1.0, True), outcome.observation
    assert game24.score(outcome.state).success


def test_steps_keep_states_json_and_untouched(game24):
    state = start(game24, [4, 4, 6, 8])
    frozen = json.dumps(state, sort_keys=True)
    outcome = play(game24, state, "4 + 8 = 12 (left: 4 6 12)", "6 - 4 = 2 (left: 2 12)")
    assert json.dumps(state, sort_keys=True) == frozen
    assert json.loads(json.dumps(outcome.state)) == outcome.state
    assert outcome.state["steps"] == ["4 + 8 = 12 (left: 4 6 12)", "6 - 4 = 2 (left: 2 12)"]


@pytest.mark.parametrize(("action", "note"), [
    ("10 - 9 = 1 (left: 1 4)", " (you wrote left: 1 4)"),
    ("10 - 9 = 1 (left: 1 4 13 13)", " (you wrote left: 1 4 13 13)"),
    ("10 - 9 = 1", ""),
    ("10 - 9 = 1 (left: 1 4 x)", ""),
    ("10 - 9 = 1 (left: 1 4 13)", ""),
])
def test_a_step_is_its_arithmetic_and_a_wrong_left_list_is_corrected(game24, action, note):
    state = start(game24, [4, 9, 10, 13])
    outcome = game24.step(state, action)
    assert not outcome.invalid_action and not outcome.terminated
    assert outcome.observation == "left: 1 4 13" + note
    assert outcome.state["left"] == ["1", "4", "13"]
    assert outcome.state["steps"] == ["10 - 9 = 1 (left: 1 4 13)"]
