"""The code runner's answer key: behaviour on probe inputs built from the task statement."""

from __future__ import annotations

import pytest

from env_servers.coderunner.probes import canonical_value_text, probe_tests
from env_servers.coderunner.tasks import TaskSet

from tests.coderunner.test_domain import reset

def call_of(probe: str) -> str:
    return probe.removeprefix("assert ").removesuffix(" is NotImplemented")


ADD_PROMPT = '''def add(x: int, y: int):
    """Add two numbers x and y
    >>> add(2, 3)
    5
    >>> add(5, 7)
    12
    """
'''


def test_probes_are_the_examples_calls_then_one_argument_changed_at_a_time():
    probes = probe_tests(ADD_PROMPT, "add")
    assert probes[:2] == ("assert add(2, 3) is NotImplemented",
                          "assert add(5, 7) is NotImplemented")
    calls = [call_of(p) for p in probes]
    assert "add(3, 3)" in calls and "add(2, 4)" in calls and "add(6, 7)" in calls
    assert len(set(calls)) == len(calls) <= 12
    assert probe_tests(ADD_PROMPT, "add") == probes, "deterministic"


@pytest.mark.parametrize("prompt, entry, expected", [
    ('def f(s: str, n: int):\n    """f("5 apples", 19) -> 14"""\n', "f", "f('5 apples', 19)"),
    ('def g(n):\n    """g(15)   # returns "db1111db"\n    """\n', "g", "g(15)"),
    ('def h(num):\n    """For num = "AB" the output should be 1."""\n', "h", "h(num='AB')"),
    ('def k(arr):\n    """\n    Input: [1,2,3]\n    Output: [2, 1]\n    """\n', "k", "k([1, 2, 3])"),
    ('def v(r):\n    """assert math.isclose(v(10), 4188.79)"""\n', "v", "v(10)"),
])
def test_examples_written_in_other_forms_give_probes(prompt, entry, expected):
    assert call_of(probe_tests(prompt, entry)[0]) == expected


def test_without_examples_the_annotated_types_give_small_values():
    prompt = 'from typing import List\ndef f(xs: List[int], n: int) -> int:\n    """No examples."""\n'
    calls = [call_of(p) for p in probe_tests(prompt, "f")]
    assert calls[0] == "f([], 1)" and len(calls) >= 6


def test_every_lats_humaneval_problem_has_probes():
    tasks = TaskSet(None, ())
    counts = {task: len(probe_tests(tasks.get(task).prompt, tasks.get(task).entry_point))
              for task in tasks.ids("lats-humaneval")}
    assert min(counts.values()) >= 3, [t for t, c in counts.items() if c < 3]


@pytest.mark.parametrize("text, same_as", [
    ("5.0", "5"), ("True", "1"), ("{'b', 'a'}", "{'a', 'b'}"), ("{2: 1, 1: 2}", "{1: 2, 2: 1}"),
    ("0.30000000000000004", "0.3"),
])
def test_values_are_compared_as_equality_compares_them(text, same_as):
    assert canonical_value_text(text) == canonical_value_text(same_as)


@pytest.mark.parametrize("text, other", [("[1, 2]", "(1, 2)"), ("'1'", "1"), ("[2, 1]", "[1, 2]")])
def test_values_that_differ_under_equality_stay_apart(text, other):
    assert canonical_value_text(text) != canonical_value_text(other)


PLUS = "def add(x: int, y: int):\n    return x + y\n"
PLUS_AGAIN = "def add(x, y):\n    total = sum([x, y])\n    return float(total)\n"
TIMES = "def add(x: int, y: int):\n    return x * y\n"
FITS_THE_EXAMPLES = ("def add(x, y):\n    return {(2, 3): 5, (5, 7): 12}.get((x, y), 0)\n")
RAISES = "def add(x, y):\n    raise ValueError(f'no {x}')\n"


async def test_programs_that_behave_alike_share_a_key_and_others_do_not(domain):
    state = reset(domain).state                                  # HumanEval/53, add(x, y)
    keys = {name: (await domain.step(state, program)).answer_key
            for name, program in [("plus", PLUS), ("plus_again", PLUS_AGAIN), ("times", TIMES),
                                  ("fits", FITS_THE_EXAMPLES), ("raises", RAISES)]}
    assert keys["plus"] == keys["plus_again"], "same values (5 == 5.0) on every probe"
    assert len({keys["plus"], keys["times"], keys["fits"], keys["raises"]}) == 4
    assert all(len(key) == 32 for key in keys.values())
    again = await domain.step(state, PLUS)
    assert again.answer_key == keys["plus"], "deterministic"


async def test_a_program_that_hangs_on_a_probe_still_gets_a_key_and_its_test_verdict(domain):
    hangs_off_the_examples = ("def add(x, y):\n    if (x, y) in ((2, 3), (5, 7)):\n"
                              "        return x + y\n    while True:\n        pass\n")
    step = await domain.step(reset(domain).state, hangs_off_the_examples)
    assert step.terminated and step.reward == 1.0, "the visible tests ran on their own"
    assert step.answer_key and step.answer_key != (await domain.step(reset(domain).state,
                                                                      PLUS)).answer_key


async def test_invalid_actions_have_no_key(domain):
    step = await domain.step(reset(domain).state, "no code here at all")
    assert step.invalid_action and step.answer_key == ""


def test_where_an_exception_was_raised_is_no_part_of_the_behaviour():
    from env_servers.coderunner.probes import canonical_outcome
    from env_servers.sandbox.base import TestOutcome

    outcomes = [TestOutcome(test="t", passed=False, detail=detail) for detail in (
        "ValueError [line 3]", "ValueError [line 9]", "ValueError: bad [line 2]", "ValueError")]
    assert {canonical_outcome(o) for o in outcomes} == {"raised ValueError"}


async def test_a_steps_facets_are_its_probe_calls_and_its_values_on_them(domain):
    state = reset(domain).state
    problem = domain.tasks.get(state["task_id"])
    step = await domain.step(state, "def add(x, y):\n    return x * y\n")
    calls = [call_of(p) for p in probe_tests(problem.prompt, problem.entry_point)]
    assert [name for name, _ in step.answer_facets] == calls, "from the statement alone"
    assert dict(step.answer_facets)["add(2, 3)"] == "6"
    divide = await domain.step(state, "def add(x, y):\n    return x // (y - 3)\n")
    assert dict(divide.answer_facets)["add(2, 3)"] == "raises ZeroDivisionError"
    broken = await domain.step(state, "def add(x, y):\n    return (\n")
    assert broken.answer_facets == ()


async def test_facets_never_depend_on_the_hidden_tests(domain):
    import dataclasses

    state = reset(domain).state
    problem = domain.tasks.get(state["task_id"])
    before = await domain.step(state, "def add(x, y):\n    return x + y\n")
    domain.tasks._by_id[problem.task_id] = dataclasses.replace(
        problem, hidden_tests=("assert add(100, 200) == 300",))
    try:
        after = await domain.step(state, "def add(x, y):\n    return x + y\n")
    finally:
        domain.tasks._by_id[problem.task_id] = problem
    assert after.answer_facets == before.answer_facets
    assert all("100" not in name for name, _ in after.answer_facets)
