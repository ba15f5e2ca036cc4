"""Programming problems and the dataset formats they are read from.

A `Problem` is what the server knows about one task: the prompt the model sees
(signature + docstring), the entry point, the hidden tests that only `Score`
runs, and the task's own setup code: trusted code of the dataset (helper
functions, imports) that runs before the program and again in the tests'
namespace, where its names win over the program's (see RunRequest.setup). A
program may leave the helpers out, as the official evaluators let it (they
run prompt + completion), and cannot replace the ones the tests use.
Three formats are read (each as .json, .jsonl or .jsonl.gz):

  * HumanEval (openai/human-eval): task_id, prompt, entry_point, test
    (a `check(candidate)` function; the hidden test calls it on the entry point).
    Setup: the prompt without the entry point's definition (its imports, and
    the helpers of HumanEval/10, /32, /38 and /50).
  * MultiPL-E (the LATS paper's humaneval-py / mbpp-py): name, prompt,
    entry_point, test (a block that ends by calling its own `test_check()`).
    Setup as for HumanEval.
  * MBPP (original or sanitized, google-research): task_id, prompt or text,
    code, test_list, test_imports or test_setup_code. The prompt is built from
    the reference code's signature, the description and the first test as an
    example; the hidden tests are the whole test_list. Setup: test_imports or
    test_setup_code, and the reference code's own imports (MBPP/596's tests
    use `sys`, which only its reference code imports).
"""

from __future__ import annotations

import ast
import gzip
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from env_servers.coderunner.pysource import parse


class DatasetError(ValueError):
    """A dataset file or record cannot be read; the message names it and says why."""


@dataclass(frozen=True)
class Problem:
    task_id: str
    prompt: str                     # what the model sees: signature + docstring
    entry_point: str                # the function the tests call
    hidden_tests: tuple[str, ...]   # Score only; each runs after the program
    setup: str = ""                 # the dataset's trusted helpers and imports (RunRequest.setup)


def read_records(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a .json (a list), .jsonl or .jsonl.gz file."""
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        raise DatasetError(f"cannot read {path}: {error}") from error
    try:
        if text.lstrip().startswith("["):
            records = json.loads(text)
        else:
            records = [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as error:
        raise DatasetError(f"{path} is neither a JSON list nor JSON lines: {error}") from error
    if not all(isinstance(record, dict) for record in records):
        raise DatasetError(f"{path} must hold JSON objects, one per problem")
    return records


def load_problems(path: Path) -> list[Problem]:
    """Every problem of a dataset file, in file order; the format is detected per record."""
    problems = []
    for number, record in enumerate(read_records(path), start=1):
        try:
            problems.append(problem_from_record(record))
        except DatasetError as error:
            raise DatasetError(f"{path} record {number}: {error}") from error
    ids = [p.task_id for p in problems]
    if len(set(ids)) != len(ids):
        raise DatasetError(f"{path} repeats task ids")
    return problems


def problem_from_record(record: Mapping[str, Any]) -> Problem:
    if "test_list" in record:
        return _mbpp(record)
    if {"prompt", "entry_point", "test"} <= record.keys():
        if "task_id" in record:
            return _humaneval(record)
        if "name" in record:
            return _multipl_e(record)
    raise DatasetError(
        "unknown format: expected HumanEval (task_id, prompt, entry_point, test), "
        "MultiPL-E (name, prompt, entry_point, test) or MBPP (task_id, text, code, test_list)"
    )


def _humaneval(record: Mapping[str, Any]) -> Problem:
    entry = _text(record, "entry_point")
    test = _text(record, "test")
    prompt = _text(record, "prompt")
    return Problem(_text(record, "task_id"), prompt, entry,
                   (f"{test.rstrip()}\n\ncheck({entry})\n",), prompt_setup(prompt, entry))


def _multipl_e(record: Mapping[str, Any]) -> Problem:
    prompt, entry = _text(record, "prompt"), _text(record, "entry_point")
    return Problem(_text(record, "name"), prompt, entry, (_text(record, "test"),),
                   prompt_setup(prompt, entry))


def prompt_setup(prompt: str, entry_point: str) -> str:
    """The prompt's own code without the entry point's definition: its imports, helpers, constants."""
    try:
        tree = parse(prompt)
    except (SyntaxError, ValueError):
        return ""
    lines = prompt.splitlines(keepends=True)
    dropped: set[int] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry_point:
            first = min([node.lineno] + [decorator.lineno for decorator in node.decorator_list])
            dropped.update(range(first - 1, node.end_lineno))
    setup = "".join(line for index, line in enumerate(lines) if index not in dropped)
    return setup.strip() + "\n" if setup.strip() else ""


def imports_of(code: str) -> str:
    """The top-level import statements of `code`, one per line."""
    try:
        tree = parse(code)
    except (SyntaxError, ValueError):
        return ""
    return "".join(ast.unparse(node) + "\n" for node in tree.body
                   if isinstance(node, (ast.Import, ast.ImportFrom)))


def _mbpp(record: Mapping[str, Any]) -> Problem:
    tests = record["test_list"]
    if not tests or not all(isinstance(t, str) for t in tests):
        raise DatasetError("test_list must be a non-empty list of assert statements")
    code = _text(record, "code")
    description = str(record.get("prompt") or record.get("text") or "").strip()
    setup = record.get("test_imports") or record.get("test_setup_code") or ""
    if isinstance(setup, list):
        setup = "\n".join(setup)
    setup = f"{setup.strip()}\n" if setup.strip() else ""
    function = _tested_function(code, tests)
    prompt = _signature_with_docstring(function, f"{description}\n\nExample:\n{tests[0]}")
    own_imports = "".join(line for line in imports_of(code).splitlines(keepends=True)
                          if line.strip() not in setup.splitlines())
    return Problem(f"Mbpp/{record['task_id']}", prompt, function.name, tuple(tests),
                   setup + own_imports)


def _tested_function(code: str, tests: Iterable[str]) -> ast.FunctionDef:
    """The function of the reference code that the tests call."""
    try:
        defined = {n.name: n for n in parse(code).body if isinstance(n, ast.FunctionDef)}
    except SyntaxError as error:
        raise DatasetError(f"the reference code does not parse: {error}") from error
    for test in tests:
        try:
            calls = [n.func.id for n in ast.walk(parse(test))
                     if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
        except SyntaxError as error:
            raise DatasetError(f"test {test[:80]!r} does not parse: {error}") from error
        for name in calls:
            if name in defined:
                return defined[name]
    raise DatasetError("no function of the reference code is called by the tests")


def _signature_with_docstring(function: ast.FunctionDef, docstring: str) -> str:
    """`def name(args) -> ret:` with `docstring` (indented, triple-quoted) as its body."""
    stub = ast.FunctionDef(
        name=function.name, args=function.args, body=[ast.Pass()], decorator_list=[],
        returns=function.returns, type_comment=None, type_params=[],
    )
    header = ast.unparse(ast.fix_missing_locations(stub)).rsplit("\n", 1)[0]
    lines = docstring.replace('"""', "'''").strip().splitlines()
    body = "\n".join(f"    {line.strip()}" if line.strip() else "" for line in lines)
    return f'{header}\n    """\n{body}\n    """\n'


def _text(record: Mapping[str, Any], key: str) -> str:
    value = record.get(key)
    if isinstance(value, int) and key == "task_id":
        return str(value)
    if not isinstance(value, str) or not value.strip():
        raise DatasetError(f"field {key!r} is missing or empty")
    return value
