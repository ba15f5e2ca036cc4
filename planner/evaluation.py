"""The LATS value function: V(s) = lambda * LM(s) + (1 - lambda) * SC(s).

LM(s) is the language model's score of the state, parsed from the value
prompt's completion ("... Thus the correctness score is N") and rescaled from
the pack's [value_min, value_max] to [0, 1]. SC(s) is self-consistency: the
share of the n sampled actions at the parent that proposed this node's action
(an action sampled more often is more likely to be right). Where the
environment gives answer keys, agreement is the same share counted by
behaviour: samples whose results gave the same answer, however written.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence


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
