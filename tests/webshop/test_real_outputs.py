"""WebShop actions parsed as the embedded models really wrote them.

real_outputs/webshop_qwen.json holds every distinct completion of recorded
runs of the embedded models on WebShop (the key names the pack and model),
their actual formats: a capitalised verb, a space before the bracket, an
`Action:` prefix, a bare [button].
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from env_servers.webshop.actions import parse_action
from env_servers.webshop.prompts import ACTION_PREFIX_PATTERN
from planner.prompting import clean_action

OUTPUTS = json.loads((Path(__file__).parent / "real_outputs" / "webshop_qwen.json")
                     .read_text(encoding="utf-8"))
ACTS = [text for outputs in OUTPUTS.values() for text in outputs["act"]]


def read(text: str):
    """What the planner sends (the pack's prefix stripped) as the environment reads it."""
    return parse_action(clean_action(text, ACTION_PREFIX_PATTERN))


def test_every_recorded_action_parses():
    assert len(ACTS) >= 10
    for text in ACTS:
        assert read(text).name in ("search", "click", "think"), text


@pytest.mark.parametrize("text, name, argument", [
    ("Search [pair of classic brown, long lasting boat shoes in a size 14 wide with a synthetic "
     "sole, and price lower than 150.00 dollars]", "search",
     "pair of classic brown, long lasting boat shoes in a size 14 wide with a synthetic sole, "
     "and price lower than 150.00 dollars"),
    ("Action: click[long-lasting boat shoes]", "click", "long-lasting boat shoes"),
    ("[Back to Search]", "click", "Back to Search"),
    ("Search[14 wide boat shoes in a size 14 with synthetic sole]", "search",
     "14 wide boat shoes in a size 14 with synthetic sole"),
])
def test_formats_the_models_wrote(text, name, argument):
    assert text in ACTS
    action = read(text)
    assert (action.name, action.argument) == (name, argument)


def test_a_thought_cut_short_by_the_token_limit_still_reads_as_a_thought():
    cut = [t for t in OUTPUTS["turn_pack_qwen1.5b"]["act"] if t.startswith("think[B06NLUY6E0")]
    assert cut and not cut[0].endswith("]")
    assert read(cut[0]).name == "think"


def test_the_turn_packs_value_replies_all_scored():
    import re

    values = OUTPUTS["turn_pack_qwen1.5b"]["value"]
    assert values and all(re.search(r"correctness score is\s*\d+", v) for v in values)
