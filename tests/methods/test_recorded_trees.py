"""Every method reproduces, node for node and call for call, the trees recorded
before the search core was split into a search context and strategies."""

import json

import pytest

from tests.methods.recorded_trees import CASES, RECORD, record

RECORDED = json.loads(RECORD.read_text())


@pytest.mark.parametrize("case", sorted(CASES))
def test_reproduces_recorded_tree(case):
    assert record(case) == RECORDED[case]


def test_every_case_is_recorded_and_nontrivial():
    assert sorted(RECORDED) == sorted(CASES)
    assert all(len(RECORDED[c]["tree"]) > 1 for c in CASES)
    assert len(RECORDED["lats"]["calls"]) > 10
