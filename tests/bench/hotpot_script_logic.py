"""The evaluation of HotPotQA's official script (hotpot_evaluate_v1.py in
hotpotqa/hotpot), restated for the tests: the script is not a package, so the
tests run its logic, written out here independently of our own metrics
(env_servers.wiki.metrics), on the two files a bench writes, read as the
script reads them.

Its logic: for every question of the gold file (a JSON list), look its `_id`
up in the prediction file's "answer" and "sp" maps (a missing one scores 0).
Answers: normalise (lower case; drop punctuation; drop the words a, an, the;
collapse whitespace); exact match is equality; F1 is over tokens, except that
when either side is "yes", "no" or "noanswer" and they differ, F1, precision
and recall are 0. Supporting facts: sets of (title, sentence) pairs; precision
and recall over them, EM when the sets are equal. Every metric is averaged
over the gold file's questions.
"""

from __future__ import annotations

import json
import string
from collections import Counter
from pathlib import Path

_PUNCTUATION = set(string.punctuation)
_YES_NO = {"yes", "no", "noanswer"}


def normalise(text: str) -> str:
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(word for word in text.split() if word not in ("a", "an", "the"))


def answer_scores(prediction: str, gold: str) -> tuple[float, float, float, float]:
    """(em, f1, precision, recall) of one answer."""
    predicted, expected = normalise(prediction), normalise(gold)
    em = float(predicted == expected)
    if (predicted in _YES_NO or expected in _YES_NO) and predicted != expected:
        return em, 0.0, 0.0, 0.0
    common = sum((Counter(predicted.split()) & Counter(expected.split())).values())
    if common == 0:
        return em, 0.0, 0.0, 0.0
    precision, recall = common / len(predicted.split()), common / len(expected.split())
    return em, 2 * precision * recall / (precision + recall), precision, recall


def sp_scores(predicted: list, gold: list) -> tuple[float, float, float, float]:
    mine, theirs = set(map(tuple, predicted)), set(map(tuple, gold))
    hits = len(mine & theirs)
    precision = hits / len(mine) if mine else 0.0
    recall = hits / len(theirs) if theirs else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return float(mine == theirs), f1, precision, recall


def evaluate(prediction_file: Path, gold_file: Path) -> dict[str, float]:
    prediction = json.loads(Path(prediction_file).read_text(encoding="utf-8"))
    gold = json.loads(Path(gold_file).read_text(encoding="utf-8"))
    totals = dict.fromkeys(("em", "f1", "prec", "recall", "sp_em", "sp_f1", "sp_prec",
                            "sp_recall"), 0.0)
    for question in gold:
        key = question["_id"]
        if key in prediction["answer"]:
            for name, value in zip(("em", "f1", "prec", "recall"),
                                   answer_scores(prediction["answer"][key], question["answer"])):
                totals[name] += value
        if key in prediction["sp"]:
            for name, value in zip(("sp_em", "sp_f1", "sp_prec", "sp_recall"),
                                   sp_scores(prediction["sp"][key],
                                             question["supporting_facts"])):
                totals[name] += value
    return {name: value / len(gold) for name, value in totals.items()}
