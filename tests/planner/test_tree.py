"""UCT selection, backpropagation and exhaustion (planner.tree)."""

import math

import pytest

from planner.tree import Node, backpropagate, mark_exhausted, select_leaf, uct_rule


def _tree():
    root = Node(id="0", visits=4, value=0.3, expanded=True)
    a = Node(id="0.0", parent=root, depth=1, visits=3, value=0.5)
    b = Node(id="0.1", parent=root, depth=1, visits=1, value=0.4)
    root.children = [a, b]
    return root, a, b


def test_uct_matches_the_formula():
    root, a, b = _tree()
    rule = uct_rule(1.0)
    assert rule(root, a) == pytest.approx(0.5 + math.sqrt(math.log(4) / 3))
    assert rule(root, b) == pytest.approx(0.4 + math.sqrt(math.log(4) / 1))


def test_exploration_weight_changes_the_choice():
    root, a, b = _tree()
    assert select_leaf(root, uct_rule(0.0)) is a      # pure exploitation
    assert select_leaf(root, uct_rule(1.0)) is b      # the rarely visited child wins


def test_select_skips_exhausted_children_and_reports_an_exhausted_tree():
    root, a, b = _tree()
    mark_exhausted(b)
    assert select_leaf(root, uct_rule(1.0)) is a
    mark_exhausted(a)
    assert root.exhausted
    assert select_leaf(root, uct_rule(1.0)) is None


def test_backprop_is_the_running_mean_of_the_paper():
    root, a, _ = _tree()
    leaf = Node(id="0.0.0", parent=a, depth=2, visits=1, value=0.8)
    a.children, a.expanded = [leaf], True
    path = backpropagate(leaf, 1.0)
    assert [n.id for n in path] == ["0", "0.0", "0.0.0"]
    # V(s) = (V_old * (N - 1) + r) / N with N incremented first
    assert (leaf.visits, leaf.value) == (2, pytest.approx((0.8 * 1 + 1.0) / 2))
    assert (a.visits, a.value) == (4, pytest.approx((0.5 * 3 + 1.0) / 4))
    assert (root.visits, root.value) == (5, pytest.approx((0.3 * 4 + 1.0) / 5))


def test_mark_exhausted_stops_at_a_parent_with_live_children():
    root, a, b = _tree()
    a.expanded = True
    c = Node(id="0.0.0", parent=a, depth=2)
    a.children = [c]
    mark_exhausted(c)
    assert a.exhausted and not root.exhausted and not b.exhausted
