"""Describe is complete, and its prompt pack is usable by a domain-agnostic planner."""

from __future__ import annotations

import re

import pytest

from lats_runtime.reward_modes import name_of

from lats.conformance.helpers import (
    REFLECTION_PLACEHOLDERS,
    STEP_PLACEHOLDERS,
    TEMPLATE_PLACEHOLDERS,
)

SEMVER = re.compile(r"^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$")


def _format(name: str, template: str, placeholders, variables=()) -> str:
    values = {key: f"<{key}>" for key in (*placeholders, *variables)}
    try:
        return template.format(**values)
    except (KeyError, IndexError, ValueError) as error:
        pytest.fail(
            f"{name} does not format with the documented placeholders "
            f"{sorted(values)}: {type(error).__name__}: {error} (double literal braces)"
        )


def test_identity_is_complete(describe):
    assert describe.name, "Describe.name is empty"
    assert SEMVER.match(describe.version), f"version {describe.version!r} is not semantic"
    assert describe.description.strip(), "Describe.description is empty"


def test_reward_range_is_ordered(describe):
    reward = describe.reward_range
    assert reward.min < reward.max, f"reward_range min {reward.min} >= max {reward.max}"
    assert reward.min <= reward.success_threshold <= reward.max


def test_limits_are_set(limits):
    for field in ("max_steps", "max_action_bytes", "max_batch_actions"):
        assert getattr(limits, field) > 0, f"limits.{field} is 0; Describe must state it"


def test_splits_and_reward_mode(describe):
    assert describe.splits, "Describe lists no splits"
    assert len(set(describe.splits)) == len(describe.splits), "splits repeat"
    assert name_of(describe.reward_mode), (
        f"Describe states no known reward mode (got {describe.reward_mode}); set "
        "reward_mode to REWARD_MODE_NONE, REWARD_MODE_ORACLE or REWARD_MODE_HONEST")


def test_action_grammar_is_usable(describe):
    grammar = describe.action_grammar
    assert grammar.description.strip(), "action_grammar.description is empty"
    assert grammar.examples, "action_grammar has no examples"
    if grammar.pattern:
        compiled = re.compile(grammar.pattern)
        for example in grammar.examples:
            assert compiled.search(example), f"example {example!r} does not match the pattern"


def test_prompt_pack_has_the_essentials(describe):
    pack = describe.prompt_pack
    for field in ("instructions", "act_template", "value_template", "reflect_template",
                  "step_template", "value_pattern"):
        assert getattr(pack, field).strip(), f"prompt_pack.{field} is empty"
    assert pack.value_min < pack.value_max, "value_min must be below value_max"
    assert re.compile(pack.value_pattern).groups == 1, "value_pattern needs one capture group"
    if pack.action_prefix_pattern:
        re.compile(pack.action_prefix_pattern)
    if pack.setup_template:
        assert pack.setup_option_key, "setup_template needs setup_option_key"


def test_prompt_templates_format_with_documented_placeholders(describe):
    pack = describe.prompt_pack
    variables = tuple(pack.variables)
    for name in ("act_template", "value_template", "reflect_template", "setup_template"):
        _format(name, getattr(pack, name), TEMPLATE_PLACEHOLDERS, variables)
    _format("step_template", pack.step_template, STEP_PLACEHOLDERS, variables)
    _format("reflection_template", pack.reflection_template, REFLECTION_PLACEHOLDERS, variables)


def test_act_and_value_templates_show_the_task_and_trajectory(describe):
    pack = describe.prompt_pack
    for name in ("act_template", "value_template"):
        rendered = _format(name, getattr(pack, name), TEMPLATE_PLACEHOLDERS, tuple(pack.variables))
        assert "<task>" in rendered, f"{name} never shows {{task}}"
        if name == "act_template" and pack.observation_turn:
            continue                  # the trajectory follows it as chat turns
        assert "<trajectory>" in rendered, f"{name} never shows {{trajectory}}"


def test_chat_turns_are_user_and_assistant_turns_and_observation_turns_format(describe):
    pack = describe.prompt_pack
    for name in ("act_turns", "value_turns", "reflect_turns"):
        for index, turn in enumerate(getattr(pack, name)):
            assert turn.role in ("user", "assistant"), (
                f"prompt_pack.{name}[{index}] has role {turn.role!r}; use user or assistant")
            assert turn.content.strip(), f"prompt_pack.{name}[{index}] is empty"
    if pack.observation_turn:
        rendered = _format("observation_turn", pack.observation_turn,
                           ("step", "next", "observation"), ())
        assert "<observation>" in rendered, "observation_turn never shows {observation}"
