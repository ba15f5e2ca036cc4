"""The observation a program's test run produces, in the papers' format.

    Tested passed:
    assert add(2, 3) == 5

    Tests failed:
    assert add(5, 7) == 12 # output: 35, expected: 12
    assert first([]) == 0 # raised IndexError: list index out of range, at line 2: return xs[0]

preceded by one paragraph when the program itself did not run cleanly (does
not compile, raised while loading, timed out, ran out of memory, crashed).
A failed test says what a refinement needs: the exact call (the test),
the expected value (the right side of an `==` assert), and the actual value
or the error's type and message with the program's line it was raised in.
Everything here is deterministic for a deterministic program: no timings, no
file paths, so recorded model exchanges replay on any machine and backend.
"""

from __future__ import annotations

import ast
import re
import warnings

from env_servers.sandbox.base import (
    STATUS_CRASHED,
    STATUS_ERROR,
    STATUS_MEMORY,
    STATUS_OK,
    STATUS_SYNTAX_ERROR,
    STATUS_TIMEOUT,
    RunResult,
)

MAX_DETAIL_CHARS = 300
_PATH = re.compile(r"""(?:[A-Za-z]:)?(?:/[^\s"':,)]+)+/""")


def observation(result: RunResult, tests: tuple[str, ...], wall_limit: float,
                syntax_error: str = "", program: str = "") -> str:
    """The feedback for a run of `tests` on `program`; `syntax_error` is the compiler's
    message, if any."""
    outcomes = {outcome.test: outcome for outcome in result.tests}
    passed, failed = [], []
    for test in tests:
        outcome = outcomes.get(test)
        if outcome is not None and outcome.passed and result.status == STATUS_OK:
            passed.append(test)
        else:
            failed.append(f"{test} # {_failure(test, outcome, result, program)}")
    text = "Tested passed:\n" + "".join(f"{t}\n" for t in passed)
    text += "\nTests failed:\n" + "".join(f"{t}\n" for t in failed)
    problem = program_problem(result, wall_limit, syntax_error)
    return f"{problem}\n\n{text}".rstrip("\n") if problem else text.rstrip("\n")


FAILURE_KINDS = {STATUS_SYNTAX_ERROR: "syntax", STATUS_ERROR: "load", STATUS_TIMEOUT: "timeout",
                 STATUS_MEMORY: "memory", STATUS_CRASHED: "crash"}


def failure_kind(result: RunResult, tests) -> str:
    """The kind of the run's failure (StepResult.failure_kind): the program's own
    problem (syntax, load, timeout, memory, crash), else "raised" when a failed test
    raised in the program, "wrong" when every failed test returned a wrong value,
    "" when every test passed."""
    if result.status != STATUS_OK:
        return FAILURE_KINDS.get(result.status, "crash")
    outcomes = {outcome.test: outcome for outcome in result.tests}
    failed = [outcomes.get(test) for test in tests
              if not (outcomes.get(test) is not None and outcomes[test].passed)]
    if not failed:
        return ""
    raised = any(o is not None and o.detail and not _OUTPUT.match(o.detail.strip())
                 for o in failed)
    return "raised" if raised else "wrong"


def program_problem(result: RunResult, wall_limit: float, syntax_error: str = "") -> str:
    """One paragraph on why the program did not run cleanly ("" if it did)."""
    if result.status == STATUS_OK:
        return ""
    if result.status == STATUS_SYNTAX_ERROR:
        return f"The program does not compile: {syntax_error or error_line(result.stderr)}"
    if result.status == STATUS_ERROR:
        return f"The program raised an error while loading: {error_line(result.stderr)}"
    if result.status == STATUS_TIMEOUT:
        return (f"The program timed out (the tests ran longer than {wall_limit:g} s): look "
                "for an infinite loop or an algorithm that is too slow.")
    if result.status == STATUS_MEMORY:
        return "The program ran out of memory: look for unbounded growth or recursion."
    if result.status == STATUS_CRASHED:
        return "The program crashed before the tests finished (it exited or was killed)."
    return f"The program did not run ({result.status})."


def compile_error(program: str) -> str:
    """The compiler's complaint about `program` ("" if it compiles). Compiling runs nothing."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(program, "program.py", "exec", dont_inherit=True)
    except SyntaxError as error:
        where = f" (line {error.lineno})" if error.lineno else ""
        text = f": {error.text.strip()}" if error.text and error.text.strip() else ""
        return _clip(f"{type(error).__name__}: {error.msg}{where}{text}")
    except (ValueError, RecursionError, MemoryError) as error:
        return _clip(f"{type(error).__name__}: {error}")
    return ""


def error_line(stderr: str) -> str:
    """The last meaningful line of a traceback, without file paths."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    line = lines[-1] if lines else "unknown error"
    return _clip(_PATH.sub("", line))


_OUTPUT = re.compile(r"^#\s*output:\s*")
_LINE = re.compile(r"\s*\[line (\d+)\]$")
MAX_EXPECTED_CHARS = 120


def _failure(test: str, outcome, result: RunResult, program: str) -> str:
    """What went wrong in one failed test: `output: X, expected: Y`, or `raised E: m,
    at line N: code` (what the judge reported, with the program's line)."""
    detail = outcome.detail.strip() if outcome is not None and outcome.detail else ""
    if detail and not _OUTPUT.match(detail) and result.status == STATUS_OK:
        line = _LINE.search(detail)
        error = _clip(_PATH.sub("", " ".join(detail[:line.start() if line else None].split())))
        return f"raised {error}" + (_where(program, int(line.group(1))) if line else "")
    expected = expected_value(test)
    actual = _detail(outcome, result)
    return f"output: {actual}" + (f", expected: {expected}" if expected and detail else "")


def expected_value(test: str) -> str:
    """The right side of a lone `assert call == value` ("" for any other test)."""
    try:
        tree = ast.parse(test)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ""
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assert):
        return ""
    compare = tree.body[0].test
    if not (isinstance(compare, ast.Compare) and len(compare.ops) == 1
            and isinstance(compare.ops[0], ast.Eq)):
        return ""
    text = ast.unparse(compare.comparators[0])
    return text if len(text) <= MAX_EXPECTED_CHARS else ""


def _where(program: str, line: int) -> str:
    """', at line N: code' for the program's line N ('' when it has none)."""
    lines = program.splitlines()
    if not 1 <= line <= len(lines) or not lines[line - 1].strip():
        return f", at line {line}"
    return f", at line {line}: {_clip(lines[line - 1].strip())}"


def _detail(outcome, result: RunResult) -> str:
    if outcome is not None and outcome.detail:
        detail = _LINE.sub("", outcome.detail.strip())
        detail = _OUTPUT.sub("", detail)
        return _clip(_PATH.sub("", " ".join(detail.split())))
    if result.status == STATUS_OK:
        return "failed"
    return {STATUS_TIMEOUT: "timed out", STATUS_MEMORY: "out of memory",
            STATUS_SYNTAX_ERROR: "the program does not compile",
            STATUS_ERROR: "the program raised an error while loading"}.get(
                result.status, "not run")


def _clip(text: str) -> str:
    return text if len(text) <= MAX_DETAIL_CHARS else text[: MAX_DETAIL_CHARS - 3] + "..."
