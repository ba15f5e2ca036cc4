"""Parsing the model's internal tests, and the docstring fallback."""

from __future__ import annotations

from env_servers.coderunner.internal_tests import (
    MAX_TEST_CHARS,
    docstring_examples,
    parse_asserts,
    smoke_test,
)

REPLY = """Here are the tests:
1. assert add(1, 2) == 3
2) assert add(1, 2) == 3
- assert add(1,2)==3  # the same test, spelled differently
```python
assert add(
    -1,
    2) == 1
    assert add(0, 0) == 0
assert sub(1, 1) == 0
assert add(2, 2) = 4
assert True
>>> assert add(5, 5) == 10  # five
```
"""


def test_asserts_are_found_normalised_and_deduplicated_in_order():
    assert parse_asserts(REPLY, "add", 10) == [
        "assert add(1, 2) == 3",
        "assert add(-1, 2) == 1",
        "assert add(0, 0) == 0",
        "assert add(5, 5) == 10",
    ]


def test_unittest_style_assertions_become_asserts():
    reply = """```python
import unittest

class TestAdd(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(1, 2), 3)
        self.assertTrue(add(1, 1) == 2)
        self.assertFalse(add(0, 0))
        self.assertIsNone(add(None, None))
        self.assertAlmostEqual(add(0.1, 0.2), 0.3)
        self.assertIn(add(1, 1), [2, 3])
        self.assertRaises(TypeError, add, "a", 1)
        self.assertEqual(len("abc"), 3)
```"""
    assert parse_asserts(reply, "add", 10) == [
        "assert add(1, 2) == 3",
        "assert add(1, 1) == 2",
        "assert not add(0, 0)",
        "assert add(None, None) is None",
        "assert abs(add(0.1, 0.2) - 0.3) < 1e-06",
        "assert add(1, 1) in [2, 3]",
    ]


def test_the_count_is_capped():
    assert parse_asserts(REPLY, "add", 2) == ["assert add(1, 2) == 3", "assert add(-1, 2) == 1"]


def test_a_reply_that_repeats_itself_to_the_token_limit_yields_few_tests():
    reply = "assert add(1, 2) == 3\n" * 200 + "assert add(2, 2) == 4\nassert add(2, 2"
    assert parse_asserts(reply, "add", 6) == ["assert add(1, 2) == 3", "assert add(2, 2) == 4"]


def test_replies_without_usable_asserts_give_no_tests():
    for reply in ("", "I think the function adds numbers.", "assert add(1, 2) ==",
                  "assert other(1) == 2", "x = add(1, 2)", "~~~"):
        assert parse_asserts(reply, "add", 6) == []


def test_oversized_asserts_are_dropped():
    huge = f"assert add({'1' * MAX_TEST_CHARS}, 1) == 2"
    assert parse_asserts(huge, "add", 6) == []


def test_docstring_examples_become_asserts():
    prompt = '''def add(x: int, y: int):
    """Add two numbers x and y
    >>> add(2, 3)
    5
    >>> add(5, 7)
    12
    add(1, 1) ==> 2
    add(0, 1) should return 1.
    >>> add(-1, 1)

    """
'''
    assert docstring_examples(prompt, "add", 10) == [
        "assert add(2, 3) == 5", "assert add(5, 7) == 12",
        "assert add(1, 1) == 2", "assert add(0, 1) == 1",
    ]
    assert docstring_examples(prompt, "add", 1) == ["assert add(2, 3) == 5"]


def test_asserts_in_the_prompt_count_as_examples():
    prompt = 'def sq(n):\n    """\n    Square n.\n\n    Example:\n    assert sq(3) == 9\n    """\n'
    assert docstring_examples(prompt, "sq", 4) == ["assert sq(3) == 9"]


def test_a_rule_stated_with_variables_is_no_example():
    """HumanEval/63 states its recurrence as `fibfib(n) == ...`: as a test it fails every right program."""
    prompt = (
        'def fibfib(n: int):\n    """\n    fibfib(0) == 0\n    fibfib(1) == 0\n    fibfib(2) == 1\n'
        "    fibfib(n) == fibfib(n-1) + fibfib(n-2) + fibfib(n-3).\n    assert fibfib(k) == fibfib(k)\n"
        '    >>> fibfib(5)\n    4\n    """\n'
    )
    assert docstring_examples(prompt, "fibfib", 4) == [
        "assert fibfib(0) == 0", "assert fibfib(1) == 0", "assert fibfib(2) == 1", "assert fibfib(5) == 4",
    ]


def test_an_example_with_an_unquoted_word_is_no_example():
    """HumanEval/76 and /80 write `true` and `is_happy(a)`: names that exist nowhere."""
    prompt = 'def is_happy(s):\n    """\n    is_happy(a) => False\n    is_happy("abcd") => True\n    """\n'
    assert docstring_examples(prompt, "is_happy", 4) == ["assert is_happy('abcd') == True"]


def test_the_smoke_test_checks_the_entry_point_exists():
    assert smoke_test("add") == "assert callable(add)"


def test_a_comment_after_an_example_call_keeps_its_expected_value():
    """HumanEval/32: the comment on the call line once swallowed `== -0.5`, so any number passed."""
    prompt = (
        "def find_zero(xs: list):\n"
        '    """\n'
        "    >>> round(find_zero([1, 2]), 2) # f(x) = 1 + 2x\n"
        "    -0.5\n"
        "    >>> find_zero([3])  # an example with no expected value is no example\n"
        "\n"
        "    find_zero([4, 2]) ==> -2.0  # and an arrow example with a comment\n"
        '    """\n'
    )
    assert docstring_examples(prompt, "find_zero", 5) == [
        "assert round(find_zero([1, 2]), 2) == -0.5",
        "assert find_zero([4, 2]) == -2.0",
    ]
