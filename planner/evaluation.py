"""The LATS value function: V(s) = lambda * LM(s) + (1 - lambda) * SC(s).

LM(s) is the language model's score of the state, parsed from the value
prompt's completion ("... Thus the correctness score is N") and rescaled from
the pack's [value_min, value_max] to [0, 1]. SC(s) is self-consistency: the
share of the n sampled actions at the parent that proposed this node's action
(an action sampled more often is more likely to be right). Where the
environment gives answer keys, agreement is the same share counted by
behaviour: samples whose results gave the same answer, however written.

The search takes its value function as an `Evaluator` (as OpenSpiel's MCTS
bot takes one), chosen once from the settings by `evaluator_for`:

  LmValue            lambda * LM + (1 - lambda) * the second term (value calls)
  SelfConsistency    the second term SC alone: no value calls (the "no LM value
                     heuristic" ablation, or lambda = 0)
  EnvironmentReward  the step's normalised reward as the second term instead of
                     SC (reward_in_value: e.g. the share of visible tests passed)

Both second terms mix in beta (agreement_weight) of answer agreement where the
environment gives answer keys. An evaluator values a stepped child that is
neither an invalid action nor (outside honest mode) terminal; those the search
context values itself.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from planner.search_config import LatsConfig
from planner.tree import Node

if TYPE_CHECKING:                       # the context hands itself in; it stands above
    from planner.context import SearchContext

log = logging.getLogger(__name__)
DEFAULT_VALUE_PATTERN = r"score is\s*(\d+(?:\.\d+)?)"


def value_range(pack) -> tuple[float, float]:
    """The pack's value scale (value_min, value_max; an unset maximum is 10)."""
    return pack.value_min, pack.value_max or 10.0


def parse_value(text: str, pattern: str, low: float, high: float) -> float | None:
    """The LAST match of `pattern`'s first group, rescaled to [0, 1] and clamped.

    Returns None if nothing matches or the range is empty.
    """
    if high <= low:
        return None
    matches = re.findall(pattern, text, flags=re.IGNORECASE)
    if not matches:
        return None
    last = matches[-1]
    if isinstance(last, tuple):
        last = last[0]
    try:
        raw = float(last)
    except ValueError:
        return None
    return min(1.0, max(0.0, (raw - low) / (high - low)))


def lm_score(texts: Sequence[str], pattern: str, low: float, high: float) -> float:
    """Mean parsed score over value samples; an unparseable sample counts as 0."""
    return lm_scores(texts, pattern, low, high)[0]


def lm_scores(texts: Sequence[str], pattern: str, low: float,
              high: float) -> tuple[float, int]:
    """(mean parsed score, samples the pattern did not match); a miss counts as 0."""
    if not texts:
        return 0.0, 0
    scores = [parse_value(t, pattern, low, high) for t in texts]
    misses = sum(1 for s in scores if s is None)
    return sum(s if s is not None else 0.0 for s in scores) / len(texts), misses


def self_consistency(keys: Sequence[str]) -> dict[str, float]:
    """For each distinct action key, the share of the samples that proposed it."""
    if not keys:
        return {}
    counts = Counter(keys)
    return {key: count / len(keys) for key, count in counts.items()}


def answer_agreement(keys: Sequence[str]) -> dict[str, float]:
    """Behaviour self-consistency: for each non-empty answer key, the share of
    the samples whose results gave that answer ("" keys agree with nothing)."""
    if not keys:
        return {}
    counts = Counter(key for key in keys if key)
    return {key: count / len(keys) for key, count in counts.items()}


def combined_value(lm: float, sc: float, value_weight: float) -> float:
    """V = lambda * LM + (1 - lambda) * SC."""
    return value_weight * lm + (1.0 - value_weight) * sc


class Estimate(NamedTuple):
    """An evaluator's verdict on a node: V, and the LM score and the value completions
    the pattern missed when it asked the model."""

    value: float
    lm_score: float | None = None
    parse_misses: int = 0


class Evaluator:
    """Values one new child of the tree (see the module docstring)."""

    async def evaluate(self, ctx: SearchContext, node: Node, calls: bool = True) -> Estimate:
        """V of `node`; with `calls` false no model call may be made (a sibling
        already succeeded, so the value cannot matter)."""
        raise NotImplementedError


class SelfConsistency(Evaluator):
    """V = SC: the share of the expansion's samples that proposed the node's action."""

    def __init__(self, agreement_weight: float = 0.0):
        self.agreement_weight = agreement_weight

    async def evaluate(self, ctx: SearchContext, node: Node, calls: bool = True) -> Estimate:
        return Estimate(with_agreement(node.sc_score, node, self.agreement_weight))


class EnvironmentReward(Evaluator):
    """V = the step's reward, normalised to [0, 1] by the environment's reward range."""

    def __init__(self, agreement_weight: float = 0.0):
        self.agreement_weight = agreement_weight

    async def evaluate(self, ctx: SearchContext, node: Node, calls: bool = True) -> Estimate:
        return Estimate(with_agreement(ctx.normalised(node.reward), node, self.agreement_weight))


class LmValue(Evaluator):
    """V = lambda * LM + (1 - lambda) * `second`'s V; LM is the mean parsed score of
    `samples` value completions (greedy when one, else at `temperature`)."""

    def __init__(self, second: Evaluator, value_weight: float, samples: int = 1,
                 temperature: float = 1.0):
        self.second = second
        self.value_weight = value_weight
        self.samples = max(1, samples)
        self.temperature = temperature

    async def evaluate(self, ctx: SearchContext, node: Node, calls: bool = True) -> Estimate:
        second = await self.second.evaluate(ctx, node)
        if not calls:
            return second
        pack = ctx.pack
        texts = await ctx.sample(
            ctx.renderer.value(node, ctx.recent_reflections()), "value", node.id, self.samples,
            0.0 if self.samples == 1 else self.temperature, pack.value_stop,
            pack.value_max_tokens)
        score, misses = lm_scores(texts, pack.value_pattern or DEFAULT_VALUE_PATTERN,
                                  *value_range(pack))
        if misses:
            log.warning("value pattern %r matched none of %d value completion(s) for node "
                        "%s (counted as the lowest score): %r", pack.value_pattern,
                        misses, node.id, texts[0][:200] if texts else "")
        return Estimate(combined_value(score, second.value, self.value_weight), score, misses)


def with_agreement(second: float, node: Node, agreement_weight: float) -> float:
    """The second term with beta of behaviour agreement, where the node has an answer key."""
    if agreement_weight and node.answer_key:
        return (1.0 - agreement_weight) * second + agreement_weight * node.agreement
    return second


def evaluator_for(config: LatsConfig) -> Evaluator:
    """The value function the settings name: the LM value over SC or the reward
    (reward_in_value), or the second term alone when lm_value is off or lambda is 0."""
    second: Evaluator = (EnvironmentReward(config.agreement_weight) if config.reward_in_value
                         else SelfConsistency(config.agreement_weight))
    if config.lm_value and config.value_weight > 0:
        return LmValue(second, config.value_weight, config.value_samples, config.temperature)
    return second
