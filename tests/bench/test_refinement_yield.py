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
