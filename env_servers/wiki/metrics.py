"""Exact match and F1 exactly as the official HotPotQA evaluation computes them.

`normalize_answer` is SQuAD's normalisation (lower case, drop punctuation, drop
the articles a/an/the, collapse whitespace). F1 follows hotpot_evaluate_v1.py,
including its special case: if either side normalises to "yes", "no" or
"noanswer" and the two differ, precision, recall and F1 are all 0.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from dataclasses import dataclass

_PUNCTUATION = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_SPECIAL = ("yes", "no", "noanswer")


@dataclass(frozen=True)
class AnswerScore:
    em: float
    f1: float
    precision: float
    recall: float


def normalize_answer(text: str) -> str:
    text = text.lower()
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def exact_match(prediction: str, gold: str) -> bool:
    return normalize_answer(prediction) == normalize_answer(gold)


def f1_precision_recall(prediction: str, gold: str) -> tuple[float, float, float]:
    predicted, expected = normalize_answer(prediction), normalize_answer(gold)
    if (predicted in _SPECIAL or expected in _SPECIAL) and predicted != expected:
        return 0.0, 0.0, 0.0
    predicted_tokens, expected_tokens = predicted.split(), expected.split()
    same = sum((Counter(predicted_tokens) & Counter(expected_tokens)).values())
    if same == 0:
        return 0.0, 0.0, 0.0
    precision = same / len(predicted_tokens)
    recall = same / len(expected_tokens)
    return 2 * precision * recall / (precision + recall), precision, recall


def score_answer(prediction: str, gold: str) -> AnswerScore:
    f1, precision, recall = f1_precision_recall(prediction, gold)
    return AnswerScore(float(exact_match(prediction, gold)), f1, precision, recall)
