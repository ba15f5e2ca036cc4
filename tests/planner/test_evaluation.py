"""The value parser, self-consistency and the combined value (planner.evaluation)."""

import pytest

from planner.evaluation import combined_value, lm_score, parse_value, self_consistency

PATTERN = r"correctness score is\s*(\d+(?:\.\d+)?)"


@pytest.mark.parametrize("text, expected", [
    ("Thus the correctness score is 10", 1.0),
    ("Thus the correctness score is 1", 0.0),
    ("... so thus the Correctness Score is 7.", pytest.approx(6 / 9)),
    ("score is 3 ... Thus the correctness score is 5.5", pytest.approx(4.5 / 9)),
    ("Thus the correctness score is 3, later correctness score is 8", pytest.approx(7 / 9)),
    ("Thus the correctness score is 42", 1.0),   # clamped
    ("Thus the correctness score is 0", 0.0),    # clamped
])
def test_parse_value_takes_the_last_match_rescaled(text, expected):
    assert parse_value(text, PATTERN, 1, 10) == expected


@pytest.mark.parametrize("text", ["", "I think it is fine", "correctness score is high"])
def test_parse_value_without_a_score_is_none(text):
    assert parse_value(text, PATTERN, 1, 10) is None


def test_parse_value_with_an_empty_range_is_none():
    assert parse_value("correctness score is 5", PATTERN, 5, 5) is None


def test_lm_score_averages_and_counts_unparseable_as_zero():
    texts = ["correctness score is 10", "no idea", "correctness score is 1"]
    assert lm_score(texts, PATTERN, 1, 10) == pytest.approx((1.0 + 0.0 + 0.0) / 3)


def test_self_consistency_is_the_share_of_samples():
    shares = self_consistency(["a", "b", "a", "a", "c"])
    assert shares == {"a": pytest.approx(0.6), "b": pytest.approx(0.2), "c": pytest.approx(0.2)}
    assert self_consistency([]) == {}


def test_combined_value_is_lambda_weighted():
    assert combined_value(0.8, 0.2, 0.5) == pytest.approx(0.5)
    assert combined_value(0.8, 0.2, 1.0) == pytest.approx(0.8)   # no self-consistency
    assert combined_value(0.8, 0.2, 0.0) == pytest.approx(0.2)
