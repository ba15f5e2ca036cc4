"""The HotPotQA pack's parsing, pinned on what the embedded 1.5B model really wrote.

real_outputs/hotpotqa_qwen1.5b.json holds every distinct completion of two
recorded `lats bench` runs of qwen2.5-coder-1.5b on dev questions 0-3 (react
and lats, honest mode): one with the paper's prompts pasted into one message
(old_pack), one with the chat-turn pack (turn_pack). They are the model's
actual formats, not idealised ones.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from env_servers.wiki.actions import ActionError, parse_action
from env_servers.wiki.prompts import VALUE_PATTERN

OUTPUTS = json.loads((Path(__file__).parent / "real_outputs" / "hotpotqa_qwen1.5b.json")
                     .read_text(encoding="utf-8"))


def scored(texts):
    return [t for t in texts if re.search(VALUE_PATTERN, t, re.IGNORECASE)]


def test_the_paper_prompts_value_completions_mostly_did_not_parse():
    values = OUTPUTS["old_pack_qwen1.5b"]["value"]
    assert len(scored(values)) == 12 and len(values) == 31, "why the pack changed"
    assert sum(1 for t in values if t.lstrip().startswith("Thought 1:")) >= 10, (
        "the model copied the trajectory instead of judging it")


def test_every_value_completion_of_the_turn_pack_parses():
    values = OUTPUTS["turn_pack_qwen1.5b"]["value"]
    assert len(values) == 36 and scored(values) == values
    assert all(len(t) < 300 and "\n" not in t.strip() for t in values), "one line each"


def test_act_completions_parse_except_those_that_state_no_action():
    acts = OUTPUTS["turn_pack_qwen1.5b"]["act"] + OUTPUTS["old_pack_qwen1.5b"]["act"]
    unparsed = []
    for text in acts:
        try:
            action = parse_action(text)
        except ActionError:
            unparsed.append(text)
            continue
        assert action.verb in ("search", "lookup", "finish") and action.argument
    assert len(acts) == 162 and len(unparsed) == 3
    assert all("Action" not in text for text in unparsed), "no action line at all"


@pytest.mark.parametrize("text, verb, argument", [
    ("Thought 1: To answer this question, I need to find the nationality of Scott Derrickson "
     "and Ed Wood and determine if they are from the same country.\n\nAction 1: "
     "Search[Scott Derrickson]", "search", "Scott Derrickson"),     # a blank line between
    ("Thought 2: Corliss Archer is played by Janet Waldo in the Kiss and Tell film. Janet Waldo "
     "is not a government position, she is a actress. So the answer is not a government "
     "position.\nAction 3: Finish[not a government position]", "finish",
     "not a government position"),          # the wrong step number: the line still counts
])
def test_formats_the_model_wrote(text, verb, argument):
    assert text in OUTPUTS["turn_pack_qwen1.5b"]["act"] + OUTPUTS["old_pack_qwen1.5b"]["act"]
    action = parse_action(text)
    assert (action.verb, action.argument) == (verb, argument)
