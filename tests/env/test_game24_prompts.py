"""The Game-24 prompt pack is well-formed, and its examples tell the truth."""

from __future__ import annotations

import itertools
import re
import string
from fractions import Fraction

import pytest

from env_servers.game24 import prompts
from planner.evaluation import parse_value

TEMPLATE_PLACEHOLDERS = ("instructions", "examples", "task", "trajectory", "reflections",
                         "step", "outcome")


@pytest.fixture(scope="module")
def pack(game24):
    return game24.describe().prompt_pack


def test_every_template_formats_with_the_documented_placeholders(pack):
    values = {name: f"<{name}>" for name in TEMPLATE_PLACEHOLDERS}
    values.update(pack.variables)
    for name in ("act_template", "value_template", "reflect_template", "setup_template"):
        getattr(pack, name).format(**values)
    step = pack.step_template.format(step=2, action="<action>", observation="<observation>")
    assert step == "Step 2: <action>\nObservation: <observation>\n"
    assert pack.reflection_template.format(index=1, reflection="<r>") == "1. <r>\n"
    act = pack.act_template.format(**values)
    assert act == "<reflections>Input: <task>", "the trajectory follows as turns"
    assert pack.observation_turn.format(observation="left: 4 6") == "Observation: left: 4 6"
    value = pack.value_template.format(**values)
    assert value.startswith("Input: <task>\nSteps:\n<trajectory>Judge whether")
    assert "<outcome>" in pack.reflect_template.format(**values)


def test_the_examples_are_conversations_one_step_a_turn(pack):
    turns = [(t.role, t.content) for t in pack.act_turns]
    assert turns[:4] == [("user", "Input: 4 4 6 8"), ("assistant", "4 + 8 = 12 (left: 4 6 12)"),
                         ("user", "Observation: left: 4 6 12"),
                         ("assistant", "6 - 4 = 2 (left: 2 12)")]
    assert sum(1 for role, text in turns if role == "user" and text.startswith("Input: ")) == 4
    assert all("\n" not in text for role, text in turns if role == "assistant")
    verdicts = [t.content for t in pack.value_turns if t.role == "assistant"]
    assert len(verdicts) == 5 and all(v.endswith(("10", "5", "1")) for v in verdicts)


def test_the_one_message_pack_made_the_small_model_echo_its_instructions():
    import json
    from pathlib import Path

    outputs = json.loads((Path(__file__).parent / "real_outputs" / "game24_qwen.json")
                         .read_text(encoding="utf-8"))
    acts = outputs["one_message_pack_qwen0.5b"]["act"]
    echoed = [a for a in acts if "line that is either the next step" in a]
    assert len(acts) == 28 and len(echoed) >= 5, "why the examples became turns"
    cot = outputs["one_message_pack_qwen1.5b_cot"]["cot"]
    assert all(re.match(r"^(Step \d+: )?(\d|Answer:)", text) for text in cot), (
        "the 1.5B model kept to one step a line")


def test_templates_use_only_documented_placeholders(pack):
    with pytest.raises(KeyError):
        pack.act_template.format()  # sanity: the check below can fail
    for name in ("act_template", "value_template", "reflect_template"):
        parsed = string.Formatter().parse(getattr(pack, name))
        fields = {field for _, field, _, _ in parsed if field}
        assert fields <= set(TEMPLATE_PLACEHOLDERS), (name, fields)


def test_sampling_settings(pack):
    assert list(pack.act_stop) == ["\n"]
    assert (pack.value_min, pack.value_max) == (1, 10)
    hints = pack.search_hints
    assert (hints.max_depth, hints.n_samples, hints.iterations, hints.simulate) == (4, 5, 10, True)


@pytest.mark.parametrize(
    ("completion", "score"),
    [("... sure. Thus the correctness score is 10", "10"),
     ("likely. Thus the correctness score is 5.5\n", "5.5"),
     ("correctness score is 3 ... Thus the correctness score is 1", "1")],
)
def test_value_pattern_takes_the_last_score(pack, completion, score):
    assert re.findall(pack.value_pattern, completion)[-1] == score


# What the embedded 1.5B model really wrote to the value prompt (recorded in a
# development bench on the easy train range): 23 of 30 replies parsed. The misses
# are all arithmetic that repeats until the token limit; the parsed ones may be
# wrong (here it finds 1 * 4 * 6 = 24, then says impossible).
REAL_VALUE_REPLIES_1_5B = [
    ("Numbers left: 2 4 6. 2 * 4 = 8. 8 + 6 = 14. 14 - 2 = 12. 12 * 4 = 48. 48 / 2 = 24. "
     "Thus the correctness score is 10", 1.0),
    ("Numbers left: 1 4 6. 1 * 4 + 6 = 11. 1 * 4 - 6 = -2. 1 * 4 * 6 = 24. 1 * 4 / 6 = 2/3. "
     "impossible. Thus the correctness score is 1", 0.0),
    ("Numbers left: 4 12. 4 * 12 = 48. 12 - 4 = 8. 48 / 8 = 6. 48 / 6 = 8. 48 / 8 = 6. "
     "48 / 8 = 6. 48 / 8 = 6. 48 / 8 = 6. 48 / 8 = 6. 48 / 8 = 6. 48 / 8 = 6.", None),
]


@pytest.mark.parametrize(("reply", "value"), REAL_VALUE_REPLIES_1_5B)
def test_the_1_5b_models_real_value_replies_parse_as_recorded(pack, reply, value):
    assert parse_value(reply, pack.value_pattern, pack.value_min, pack.value_max) == value


@pytest.mark.parametrize(
    ("sampled", "action"),
    [("Step 2: 6 - 4 = 2 (left: 2 12)", "6 - 4 = 2 (left: 2 12)"),
     ("- 6 - 4 = 2 (left: 2 12)", "6 - 4 = 2 (left: 2 12)"),
     ("6 - 4 = 2 (left: 2 12)", "6 - 4 = 2 (left: 2 12)"),
     ("Answer: (6 - 4) * (4 + 8) = 24", "Answer: (6 - 4) * (4 + 8) = 24")],
)
def test_action_prefix_pattern_strips_step_labels(pack, sampled, action):
    assert re.sub(pack.action_prefix_pattern, "", sampled, count=1) == action


def _episodes(text: str):
    """(input, [(action, observation)], evaluation or None) per example block."""
    for block in text.strip().split("\n\n"):
        lines = block.splitlines()
        task = lines[0].removeprefix("Input: ")
        steps = re.findall(r"^Step \d+: (.*)\nObservation: (.*)$", block, re.MULTILINE)
        evaluation = next((line for line in lines if line.startswith("Evaluation: ")), None)
        yield task, steps, evaluation


def _replay(game24, task, steps):
    state = game24.reset({"numbers": task}, 0, {}).state
    for number, (action, observation) in enumerate(steps, start=1):
        outcome = game24.step(state, action)
        assert outcome.observation == observation, f"{task} step {number}"
        state = outcome.state
    return state


def test_act_examples_replay_exactly_and_solve(game24):
    episodes = list(_episodes(prompts.EXAMPLES))
    assert len(episodes) == 4 and episodes[0][0] == "4 4 6 8"
    for task, steps, _ in episodes:
        assert game24.score(_replay(game24, task, steps)).success, task


def _reachable(numbers) -> bool:
    if len(numbers) == 1:
        return numbers[0] == 24
    for i, j in itertools.permutations(range(len(numbers)), 2):
        rest = [n for k, n in enumerate(numbers) if k not in (i, j)]
        a, b = numbers[i], numbers[j]
        results = [a + b, a - b, a * b] + ([a / b] if b else [])
        if any(_reachable([*rest, r]) for r in results):
            return True
    return False


def test_value_examples_replay_and_score_honestly(game24, pack):
    episodes = list(_episodes(prompts.VALUE_EXAMPLES))
    assert len(episodes) == 5
    for task, steps, evaluation in episodes:
        state = _replay(game24, task, steps)
        left = [Fraction(n) for n in state["left"]]
        score = float(re.findall(pack.value_pattern, evaluation)[-1])
        if _reachable(left):
            assert score >= 5, f"{task}: reachable {left} scored {score}"
        else:
            assert score == 1, f"{task}: unreachable {left} scored {score}"
