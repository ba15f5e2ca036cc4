"""EM and F1 under the official HotPotQA normalisation (hotpot_evaluate_v1.py)."""

from __future__ import annotations

import pytest

from env_servers.wiki.metrics import (
    exact_match,
    f1_precision_recall,
    normalize_answer,
    score_answer,
)


@pytest.mark.parametrize(("text", "normalised"), [
    ("The Beatles", "beatles"),
    ("  A  Tale of Two   Cities. ", "tale of two cities"),
    ("3,677 seated", "3677 seated"),
    ("Guns N' Roses!", "guns n roses"),
    ("an Apple", "apple"),
    ("Theatre", "theatre"),          # "the" only as a whole word
    ("Chief of Protocol", "chief of protocol"),
])
def test_normalisation_is_squads(text, normalised):
    assert normalize_answer(text) == normalised


@pytest.mark.parametrize(("prediction", "gold", "em"), [
    ("the Beatles", "Beatles", True),
    ("Richard Nixon.", "richard nixon", True),
    ("3677 seated", "3,677 seated", True),
    ("President Richard Nixon", "Richard Nixon", False),
    ("yes", "no", False),
])
def test_exact_match(prediction, gold, em):
    assert exact_match(prediction, gold) is em


def test_f1_counts_shared_tokens():
    # "protocol" is 1 of 1 predicted and 1 of 3 gold tokens.
    f1, precision, recall = f1_precision_recall("Protocol", "Chief of Protocol")
    assert (precision, recall) == (1.0, pytest.approx(1 / 3))
    assert f1 == pytest.approx(2 * 1 * (1 / 3) / (1 + 1 / 3))
    # articles and punctuation do not count as tokens
    f1, precision, recall = f1_precision_recall("President Richard Nixon", "the Richard Nixon.")
    assert (precision, recall, f1) == (pytest.approx(2 / 3), 1.0, pytest.approx(0.8))


def test_f1_uses_token_multiplicity():
    # Counter intersection: a repeated token counts as often as both sides have it.
    f1, precision, recall = f1_precision_recall("new new york", "new york")
    assert (precision, recall) == (pytest.approx(2 / 3), 1.0)
    f1, precision, recall = f1_precision_recall("new york", "new new york")
    assert (precision, recall) == (1.0, pytest.approx(2 / 3))


@pytest.mark.parametrize(("prediction", "gold"), [
    ("yes", "yes it is"), ("no", "no way"), ("yes sir", "yes"), ("noanswer", "answer"),
])
def test_yes_no_noanswer_mismatch_scores_zero(prediction, gold):
    # The official special case: partial overlap with yes/no/noanswer earns nothing.
    assert f1_precision_recall(prediction, gold) == (0.0, 0.0, 0.0)


def test_no_overlap_and_empty_prediction_score_zero():
    assert f1_precision_recall("Paris", "London") == (0.0, 0.0, 0.0)
    assert f1_precision_recall("", "London") == (0.0, 0.0, 0.0)
    assert score_answer("the", "London").f1 == 0.0   # normalises to nothing


def test_score_answer_bundles_em_and_f1():
    result = score_answer("YES", "yes")
    assert (result.em, result.f1, result.precision, result.recall) == (1.0, 1.0, 1.0, 1.0)
    assert score_answer("Chief of Protocol of the US", "Chief of Protocol").em == 0.0
