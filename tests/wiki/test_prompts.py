"""The prompt packs render with the planner's renderer, and their examples speak
this environment's observation formats."""

from __future__ import annotations

import re

import pytest

from env_servers.wiki.actions import parse_action
from env_servers.wiki.domain import HotpotQACoTDomain, HotpotQADomain
from env_servers.wiki.react_examples import ACT_EXAMPLES, REFLECTION_EXAMPLES, VALUE_EXAMPLES
from planner.prompting import PromptRenderer
from planner.tree import Node

LOOKUP = re.compile(r"^\(Result \d+ / \d+\) \S")
MISS = re.compile(r"^Could not find \[[^\]]+\]\. Similar: \[('[^']*'(, )?){0,5}\]\.$")
FINISHED = re.compile(r"^Episode finished(, reward = [01])?\.?$")


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


@pytest.mark.parametrize("examples", [ACT_EXAMPLES, VALUE_EXAMPLES, REFLECTION_EXAMPLES])
def test_examples_use_parseable_actions_and_our_observation_formats(examples):
    steps = list(trajectory_steps(examples))
    assert steps
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


def test_value_examples_end_with_the_score_line():
    for block in VALUE_EXAMPLES.strip().split("\n\n"):
        assert re.search(r"Thus the correctness score is \d+$", block)


@pytest.mark.parametrize("domain_class", [HotpotQADomain, HotpotQACoTDomain])
def test_templates_render_through_the_planner(make_domain, domain_class):
    pack = make_domain(domain_class).describe().prompt_pack
    renderer = PromptRenderer(pack, "Were Scott Derrickson and Ed Wood of the same nationality?")
    renderer.validate()
    root = Node(id="0")
    child = Node(id="0.0", parent=root, depth=1,
                 action="Thought 1: I need to search Scott Derrickson.\n"
                        "Action 1: Search[Scott Derrickson]",
                 observation="Scott Derrickson (born July 16, 1966) is an American director.")
    system, user = renderer.act(child, ["Search both people first."])
    assert system[1] == pack.instructions
    assert user[1].count("Question: Were Scott Derrickson") == 1
    assert "Reflection 1: Search both people first." in user[1]
    value = renderer.value(child, [])[-1][1]
    assert "Thus the correctness score is {s}" in value and value.rstrip().endswith(
        '"Thus the correctness score is N" (N from 1 to 10).')
    reflect = renderer.reflect(child)[-1][1]
    assert reflect.rstrip().endswith("Reflection:")
    if domain_class is HotpotQADomain:
        assert ("Action 1: Search[Scott Derrickson]\nObservation 1: Scott Derrickson (born"
                in user[1])
        assert "Continue with step 2 only" in user[1]
