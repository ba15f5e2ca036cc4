"""The prompt packs render with the planner's renderer, and their examples speak
this environment's observation formats."""

from __future__ import annotations

import re

import pytest

from env_servers.wiki.actions import parse_action
from env_servers.wiki.domain import HotpotQACoTDomain, HotpotQADomain
from env_servers.wiki.react_examples import ACT_EXAMPLES
from env_servers.wiki.react_turns import _REFLECT_CASES, _VALUE_CASES, episode_turns
from planner.evaluation import parse_value
from planner.prompting import PromptRenderer
from planner.tree import Node

LOOKUP = re.compile(r"^\(Result \d+ / \d+\) \S")
MISS = re.compile(r"^Could not find \[[^\]]+\]\. Similar: \[('[^']*'(, )?){0,5}\]\.$")
FINISHED = re.compile(r"^Episode finished(, reward = [01])?\.?$")
CASES = "\n\n".join([ACT_EXAMPLES.strip(), *(case for case, _ in _VALUE_CASES),
                     *(case for case, _ in _REFLECT_CASES)])


def trajectory_steps(examples: str):
    """(step number, action text, observation) of every step of every example."""
    for block in examples.strip().split("\n\n"):
        lines = block.splitlines()
        for index, line in enumerate(lines):
            match = re.match(r"^Action (\d+): (.*)$", line)
            if match:
                after = lines[index + 1] if index + 1 < len(lines) else ""
                observation = after.split(": ", 1)[1] if after.startswith("Observation") else None
                yield int(match.group(1)), match.group(2), observation


def test_examples_use_parseable_actions_and_our_observation_formats():
    steps = list(trajectory_steps(CASES))
    assert len(steps) > 12
    for number, action, observation in steps:
        parsed = parse_action(action)
        if observation is None:
            continue
        if parsed.verb == "lookup":
            assert LOOKUP.match(observation) or observation == "No more results.", observation
        elif parsed.verb == "finish":
            assert FINISHED.match(observation), observation
        elif observation.startswith("Could not"):
            assert MISS.match(observation), observation


def test_an_example_becomes_alternating_turns_that_end_with_the_answer():
    turns = episode_turns(ACT_EXAMPLES.strip().split("\n\n")[0])
    assert turns[0] == ("user", turns[0][1]) and turns[0][1].startswith("Question: ")
    assert [role for role, _ in turns[1:]] == ["assistant", "user"] * 2 + ["assistant"]
    assert all(text.startswith("Thought") and "\nAction " in text
               for role, text in turns if role == "assistant")
    assert turns[-1][1].endswith("Action 3: Finish[Richard Nixon]")


def test_value_verdicts_are_one_line_and_parse_across_the_scale():
    scores = []
    for _, verdict in _VALUE_CASES:
        assert "\n" not in verdict
        scores.append(parse_value(verdict, r"correctness score is\s*(\d+)", 1, 10))
    assert None not in scores and min(scores) < 0.3 and max(scores) == 1.0


@pytest.mark.parametrize("domain_class", [HotpotQADomain, HotpotQACoTDomain])
def test_templates_render_through_the_planner(make_domain, domain_class):
    pack = make_domain(domain_class).describe().prompt_pack
    question = "Were Scott Derrickson and Ed Wood of the same nationality?"
    renderer = PromptRenderer(pack, question)
    renderer.validate()
    root = Node(id="0")
    child = Node(id="0.0", parent=root, depth=1,
                 action="Thought 1: I need to search Scott Derrickson.\n"
                        "Action 1: Search[Scott Derrickson]",
                 observation="Scott Derrickson (born July 16, 1966) is an American director.")
    act = renderer.act(child, ["Search both people first."])
    assert act[0] == ("system", pack.instructions)
    value = renderer.value(child, [])[-1][1]
    reflect = renderer.reflect(child)[-1][1]
    if domain_class is HotpotQACoTDomain:
        assert act[-1][1].count(f"Question: {question}") == 1
        assert "Reflection 1: Search both people first." in act[-1][1]
        assert value.rstrip().endswith('"Thus the correctness score is N" (N from 1 to 10).')
        assert reflect.rstrip().endswith("Reflection:")
        return
    examples = len(pack.act_turns)
    assert examples > 10 and act[1:1 + examples] == tuple(
        (turn.role, turn.content) for turn in pack.act_turns)
    episode = act[1 + examples:]
    assert episode == (
        ("user", "Notes from your earlier trials at this question (use them; do not repeat "
                 "what failed):\nReflection 1: Search both people first.\n"
                 f"Question: {question}"),
        ("assistant", child.action),
        ("user", "Observation 1: Scott Derrickson (born July 16, 1966) is an American director."),
    ), "the trajectory is the model's own turns and the environment's"
    assert value.startswith(f"Question: {question}\nThought 1: I need to search Scott")
    assert "Observation 1: Scott Derrickson (born" in value
    assert value.endswith('(N from 1 to 10: 1 wrong or stuck, 10 the answer is found and '
                          'an observation supports it).')
    assert renderer.value(child, [])[1:-1] == tuple(
        (turn.role, turn.content) for turn in pack.value_turns)
    assert reflect.endswith("the keyword to look up.")


def test_every_step_of_every_question_shares_the_examples_as_a_prefix(make_domain):
    pack = make_domain(HotpotQADomain).describe().prompt_pack
    first = PromptRenderer(pack, "Question one?").act(Node(id="0"), [])
    second = PromptRenderer(pack, "Another question?").act(Node(id="0"), [])
    shared = 1 + len(pack.act_turns)
    assert first[:shared] == second[:shared] and first[shared:] != second[shared:]
