"""Internal tests: the asserts a search checks its programs with.

`parse_asserts(text, entry_point, limit)` reads assert statements out of a
model's reply however it is dressed (fenced or not, numbered, indented,
spread over several lines, or written as unittest calls such as
`self.assertEqual(f(1), 2)`, which become `assert f(1) == 2`): each must parse
as one `assert`, call the entry point, and be at most MAX_TEST_CHARS long.
Tests come back normalised (one line, comments dropped); duplicates are
dropped and at most `limit` are kept, in the order written.

`docstring_examples(prompt, entry_point)` turns the prompt's own examples
(`>>> f(1)` followed by `2`, `f(1) ==> 2`, and `assert` lines) into asserts: the fallback
when a reply has no usable assert. Comments are no part of an example: the call and
the expected value are parsed as expressions and the assert is built from them, and
an example with no expected value is no example.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Iterable

from env_servers.coderunner.pysource import parse, parses

MAX_TEST_CHARS = 1000
MAX_CONTINUATION_LINES = 12
_ASSERT_LINE = re.compile(
    r"^\s*(?:>>>\s*)?(?:\d+\s*[.):]\s*|[-*•]\s+)?(assert\b.*|self\.assert\w+\s*\(.*)$")
_COMPARISONS = {"assertEqual": ast.Eq, "assertNotEqual": ast.NotEq, "assertIs": ast.Is,
                "assertIsNot": ast.IsNot, "assertIn": ast.In, "assertNotIn": ast.NotIn,
                "assertListEqual": ast.Eq, "assertTupleEqual": ast.Eq, "assertDictEqual": ast.Eq,
                "assertSetEqual": ast.Eq, "assertGreater": ast.Gt, "assertLess": ast.Lt,
                "assertGreaterEqual": ast.GtE, "assertLessEqual": ast.LtE}


def parse_asserts(text: str, entry_point: str, limit: int) -> list[str]:
    return sort_asserts(text, entry_point, limit)[0]


def sort_asserts(text: str, entry_point: str, limit: int) -> tuple[list[str], list[str]]:
    """(the tests parse_asserts keeps, each assert it left out with why: "TEST  # why")."""
    tests: list[str] = []
    left_out: list[str] = []
    seen: set[str] = set()
    for statement in _assert_statements(text.splitlines()):
        test = _as_assert(statement)
        why = _unusable(test, entry_point)
        key = None if why else _usable_key(test, entry_point)
        flat = " ".join(test.split())
        if why:
            left_out.append(f"{flat[:200]}  # {why}")
        elif key in seen:
            left_out.append(f"{key[:200]}  # a repeat")
        elif len(tests) >= limit:
            left_out.append(f"{key[:200]}  # over the limit of {limit} tests")
        else:
            seen.add(key)
            tests.append(key)
    return tests, left_out


def docstring_examples(prompt: str, entry_point: str, limit: int) -> list[str]:
    """Up to `limit` examples of the prompt as asserts: its assert lines, then its examples.

    An example must be concrete: a line that states the rule with variables
    (`fibfib(n) == fibfib(n-1) + ...`, HumanEval/63) is no example, and as a
    test it could only fail a right program.
    """
    tests = [test for test in parse_asserts(prompt, entry_point, limit) if _concrete(test, entry_point)]
    seen = set(tests)
    for call, result in _examples(prompt, entry_point):
        if len(tests) >= limit:
            break
        test = _usable_key(_example_assert(call, result), entry_point)
        if test is not None and test not in seen and _concrete(test, entry_point):
            seen.add(test)
            tests.append(test)
    return tests


def _example_assert(call: str, result: str) -> str:
    """`assert call == result`, built from the two parsed expressions (so a trailing comment on
    the call, HumanEval/32's `>>> round(find_zero([1, 2]), 2) # f(x) = 1 + 2x`, cannot swallow
    the comparison); "" if either part is not one expression."""
    try:
        left, right = parse(call, "eval").body, parse(result, "eval").body
    except (SyntaxError, ValueError):
        return ""
    test = ast.Assert(test=ast.Compare(left=left, ops=[ast.Eq()], comparators=[right]), msg=None)
    return ast.unparse(ast.fix_missing_locations(ast.Module(body=[test], type_ignores=[])))


def _concrete(test: str, entry_point: str) -> bool:
    """True if `test` names nothing but the entry point and builtins (no free variables)."""
    names = {node.id for node in ast.walk(parse(test)) if isinstance(node, ast.Name)}
    return all(name == entry_point or hasattr(builtins, name) for name in names)


def smoke_test(entry_point: str) -> str:
    """The last resort: the program defines the entry point as a function."""
    return f"assert callable({entry_point})"


def _assert_statements(lines: list[str]) -> Iterable[str]:
    """Each assert statement, joined with the continuation lines it needs to parse."""
    index = 0
    while index < len(lines):
        match = _ASSERT_LINE.match(lines[index])
        index += 1
        if not match:
            continue
        statement = match.group(1).rstrip()
        extra = 0
        while (not parses(statement) and extra < MAX_CONTINUATION_LINES
               and index + extra < len(lines)):
            statement += "\n" + lines[index + extra].strip()
            extra += 1
        if parses(statement):
            index += extra
            yield statement


def _as_assert(statement: str) -> str:
    """`statement`, with a unittest call (`self.assertEqual(a, b)`) rewritten as an assert."""
    if not statement.startswith("self."):
        return statement
    call = parse(statement).body[0]
    if not (isinstance(call, ast.Expr) and isinstance(call.value, ast.Call)):
        return statement
    method, args = call.value.func.attr, call.value.args
    if method in _COMPARISONS and len(args) >= 2:
        test = ast.Compare(left=args[0], ops=[_COMPARISONS[method]()], comparators=[args[1]])
    elif method == "assertTrue" and args:
        test = args[0]
    elif method == "assertFalse" and args:
        test = ast.UnaryOp(op=ast.Not(), operand=args[0])
    elif method in ("assertIsNone", "assertIsNotNone") and args:
        operator = ast.Is() if method == "assertIsNone" else ast.IsNot()
        test = ast.Compare(left=args[0], ops=[operator], comparators=[ast.Constant(None)])
    elif method == "assertAlmostEqual" and len(args) >= 2:
        difference = ast.BinOp(left=args[0], op=ast.Sub(), right=args[1])
        test = ast.Compare(left=ast.Call(ast.Name("abs", ast.Load()), [difference], []),
                           ops=[ast.Lt()], comparators=[ast.Constant(1e-6)])
    else:
        return statement
    return ast.unparse(ast.fix_missing_locations(ast.Module([ast.Assert(test)], [])))


def _unusable(test: str, entry_point: str) -> str:
    """Why `test` cannot be an internal test ("" if it can)."""
    if len(test) > MAX_TEST_CHARS:
        return f"longer than {MAX_TEST_CHARS} characters"
    try:
        module = parse(test)
    except (SyntaxError, ValueError):
        return "does not parse"
    if len(module.body) != 1 or not isinstance(module.body[0], ast.Assert):
        return "not one assert statement"
    if _usable_key(test, entry_point) is None:
        return f"does not call {entry_point}"
    return ""


def _usable_key(test: str, entry_point: str) -> str | None:
    """A usable test's normalised source (also its dedupe key), else None."""
    if len(test) > MAX_TEST_CHARS:
        return None
    try:
        module = parse(test)
    except (SyntaxError, ValueError):
        return None
    if len(module.body) != 1 or not isinstance(module.body[0], ast.Assert):
        return None
    calls = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                and n.func.id == entry_point for n in ast.walk(module))
    return ast.unparse(module) if calls else None


def _examples(prompt: str, entry_point: str) -> Iterable[tuple[str, str]]:
    """(call, expected) pairs from `>>> f(x)` + result lines and `f(x) ==> y` lines."""
    lines = [line.strip() for line in prompt.splitlines()]
    arrow = re.compile(rf"^({re.escape(entry_point)}\(.*\))\s*(?:==>|=>|->|➞|==|=|returns|"
                       r"should return|is)\s*(.+?)\.?$")
    for index, line in enumerate(lines):
        if line.startswith(">>>"):
            want = []
            for following in lines[index + 1:]:
                if (not following or following.startswith(">>>") or arrow.match(following)
                        or '"""' in following or "'''" in following):
                    break
                want.append(following)
            call, result = line[3:].strip(), " ".join(want)
        else:
            match = arrow.match(line)
            if not match:
                continue
            call, result = match.groups()
        if result and parses(call, "eval") and parses(result, "eval"):
            yield call, result
