"""The WebShop prompt pack: the paper's examples as chat turns (turns.py), one action
per turn; value and reflection prompts show the trial in the paper's layout."""

from __future__ import annotations

from lats_pb import environment_pb2

from env_servers.webshop import turns
from env_servers.webshop.prompts import (ACTION_PREFIX_PATTERN, INSTRUCTIONS, MAX_DEPTH,
                                         REFLECTION_TEMPLATE, STEP_TEMPLATE, VALUE_PATTERN)

# The shop's first page is the episode's first user message (after any
# reflections), every action the model's own turn and every page the user's,
# as in the few-shot conversation before it.
ACT_TEMPLATE = "{reflections}{task}"
OBSERVATION_TURN = "{observation}"
REFLECTIONS_HEADER = (
    "Notes from your earlier trials at this instruction (use them; do not repeat what "
    "failed):\n")


def prompt_pack() -> environment_pb2.PromptPack:
    return environment_pb2.PromptPack(
        instructions=INSTRUCTIONS,
        act_template=ACT_TEMPLATE,
        observation_turn=OBSERVATION_TURN,
        act_turns=turns.act_turns(),
        value_template="{task}\n\n{trajectory}" + turns.VALUE_REQUEST,
        value_turns=turns.value_turns(),
        reflect_template="{task}\n\n{trajectory}" + turns.REFLECT_REQUEST,
        reflect_turns=turns.reflect_turns(),
        step_template=STEP_TEMPLATE,
        reflection_template=REFLECTION_TEMPLATE,
        reflections_header=REFLECTIONS_HEADER,
        act_stop=["\n"],
        value_stop=["\n\n", "\nWebShop\n"],
        reflect_stop=["\n\n", "\nWebShop\n"],
        value_pattern=VALUE_PATTERN,
        value_min=1,
        value_max=10,
        act_max_tokens=96,
        value_max_tokens=96,
        reflect_max_tokens=96,
        action_prefix_pattern=ACTION_PREFIX_PATTERN,
        # Chosen on the dev instructions fixed_500-509 (1.5B, honest, 20 calls; bench/README):
        # no LM value (its calls did not pay: mean score 0.60 without, 0.45 with) and
        # stop at three agreeing purchases, as on HotPotQA; a step back to a page the
        # path had left is a loop (0.62 with, 0.60 without). lats_paper keeps the paper's.
        search_hints=environment_pb2.SearchHints(
            max_depth=MAX_DEPTH, n_samples=5, iterations=30, simulate=True,
            stop_class_size=3, value_weight=0.0, prune_loops=True),
        paper_search_hints=environment_pb2.SearchHints(
            max_depth=MAX_DEPTH, n_samples=5, iterations=30, simulate=True),
    )
