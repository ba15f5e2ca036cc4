"""bench/refinement_yield.py classes a failed program by the first failure its report shows."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "refinement_yield.py"
spec = importlib.util.spec_from_file_location("refinement_yield", SCRIPT)
refinement_yield = importlib.util.module_from_spec(spec)
spec.loader.exec_module(refinement_yield)


@pytest.mark.parametrize("observation, kind", [
    ("The program does not compile: SyntaxError: '(' was never closed (line 2)\n\n"
     "Tested passed:\n\nTests failed:\nassert f(1) == 2 # output: the program does not compile",
     "syntax"),
    ("The program raised an error while loading: NameError: name 'x' is not defined\n\n"
     "Tested passed:\n\nTests failed:\nassert f(1) == 2 # output: the program raised an error "
     "while loading", "load"),
    ("The program timed out (the tests ran longer than 5 s): look for an infinite loop.\n\n"
     "Tested passed:\n\nTests failed:\nassert f(1) == 2 # output: timed out", "timeout"),
    ("Tested passed:\nassert f(0) == 0\n\nTests failed:\nassert f(1) == 2 # raised "
     "IndexError: list index out of range, at line 3: return xs[1]", "raised"),
    ("Tested passed:\n\nTests failed:\nassert f(1) == 2 # output: 3, expected: 2", "wrong"),
])
def test_failure_kinds(observation, kind):
    assert refinement_yield.failure_kind(observation) == kind


def test_a_tree_grown_again_from_cached_samples_has_the_same_signature():
    from lats_pb import planner_pb2 as pb

    def run(run_id, task, actions):
        return pb.Run(run_id=run_id, task_id=task,
                      nodes=[pb.Node(id=i, action=a) for i, a in actions])
    tree = [("0", ""), ("0.0", "def f(): return 1"), ("0.1", "def f(): return 2")]
    first, replay = run("a", "HumanEval/1", tree), run("b", "HumanEval/1", tree[::-1])
    assert refinement_yield.tree_signature(first) == refinement_yield.tree_signature(replay)
    assert refinement_yield.tree_signature(first) != refinement_yield.tree_signature(
        run("c", "HumanEval/2", tree))
    assert refinement_yield.tree_signature(first) != refinement_yield.tree_signature(
        run("d", "HumanEval/1", tree[:2]))
