"""Dataset loading: the vendored benchmarks, format detection, and hidden tests
that accept the reference solutions (run for real in the sandbox)."""

from __future__ import annotations

import ast
import asyncio
import json

import pytest

from env_servers.coderunner.problems import DatasetError, load_problems
from env_servers.coderunner.pysource import parse
from env_servers.coderunner.tasks import TaskSet
from env_servers.sandbox import RunRequest
from env_servers.sandbox.base import Limits
from lats_runtime.resources import data_file
from tests.coderunner.conftest import canonical_program


@pytest.mark.parametrize(("name", "count", "first", "entry"), [
    ("HumanEval.jsonl.gz", 164, "HumanEval/0", "has_close_elements"),
    ("lats_humaneval-py.jsonl", 160, "HumanEval_23_strlen", "strlen"),
    ("lats_mbpp-py.jsonl", 397, "mbpp_234_volume_cube", "volume_cube"),
    ("sanitized-mbpp.json", 427, "Mbpp/2", "similar_elements"),
])
def test_vendored_datasets_load(name, count, first, entry):
    problems = load_problems(data_file(name))
    assert len(problems) == count
    assert (problems[0].task_id, problems[0].entry_point) == (first, entry)
    assert all(p.prompt.strip() and p.hidden_tests for p in problems)
    assert all(f"def {p.entry_point}" in p.prompt for p in problems)


def test_humaneval_hidden_tests_call_check_on_the_entry_point():
    problem = load_problems(data_file("HumanEval.jsonl.gz"))[0]
    assert problem.hidden_tests[0].rstrip().endswith("check(has_close_elements)")
    assert "def check(candidate):" in problem.hidden_tests[0]
    assert "def check" not in problem.prompt


def test_mbpp_setup_holds_the_test_imports_and_the_reference_codes_own():
    problems = {p.task_id: p for p in load_problems(data_file("sanitized-mbpp.json"))}
    assert problems["Mbpp/82"].setup == "import math\n"  # in test_imports and in the code: once
    assert all(test.startswith("assert ") for test in problems["Mbpp/82"].hidden_tests)
    assert problems["Mbpp/596"].setup == "import sys\n"  # its tests use sys; only its code imports it


def test_humaneval_setup_is_the_prompt_without_the_entry_point():
    problems = {p.task_id: p for p in load_problems(data_file("HumanEval.jsonl.gz"))}
    poly = problems["HumanEval/32"].setup
    assert poly.startswith("import math\n") and "def poly(xs: list, x: float):" in poly
    assert "def find_zero" not in poly
    assert problems["HumanEval/0"].setup == "from typing import List\n"
    assert "def encode_cyclic" in problems["HumanEval/38"].setup
    assert "def decode_cyclic" not in problems["HumanEval/38"].setup
    lats = {p.task_id: p for p in load_problems(data_file("lats_humaneval-py.jsonl"))}
    assert all(f"def {p.entry_point}" not in p.setup for p in lats.values())


@pytest.mark.parametrize(("records", "message"), [
    ([{"task_id": "X/1", "prompt": "def f():\n  pass\n"}], "unknown format"),
    ([{"task_id": 1, "text": "t", "code": "def f(): pass", "test_list": ["assert g() == 1"]}],
     "no function of the reference code"),
    ([{"task_id": 1, "text": "t", "code": "def f(): pass", "test_list": []}], "test_list"),
    ([{"task_id": "X/1", "prompt": "p", "entry_point": "", "test": "t"}], "entry_point"),
    ([{"name": "a", "prompt": "p", "entry_point": "f", "test": "t"}] * 2, "repeats task ids"),
])
def test_bad_records_are_refused_with_the_reason(tmp_path, records, message):
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(DatasetError, match=message):
        load_problems(path)


def test_unreadable_files_are_refused(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{not json")
    with pytest.raises(DatasetError, match="neither a JSON list nor JSON lines"):
        load_problems(path)
    with pytest.raises(DatasetError, match="cannot read"):
        load_problems(tmp_path / "missing.jsonl")


def test_task_ids_resolve_across_splits():
    tasks = TaskSet()
    assert tasks.get("Mbpp/2").entry_point == "similar_elements"
    assert tasks.get("HumanEval_23_strlen").entry_point == "strlen"


async def test_every_humaneval_reference_solution_passes_its_hidden_tests(
        sandbox, humaneval_records):
    problems = load_problems(data_file("HumanEval.jsonl.gz"))
    limits = Limits(wall_seconds=20.0, cpu_seconds=20)
    results = await asyncio.gather(*(
        sandbox.run(RunRequest(canonical_program(humaneval_records[p.task_id]), p.hidden_tests,
                               limits, (p.entry_point,), setup=p.setup)) for p in problems))
    failed = [p.task_id for p, r in zip(problems, results) if not r.all_passed]
    assert failed == []
    # ...and a wrong program fails them: the check can fail.
    wrong = await sandbox.run(RunRequest("def has_close_elements(numbers, threshold):\n"
                                         "    return False\n", problems[0].hidden_tests))
    assert not wrong.all_passed


def without_imports(code: str) -> str:
    """`code` with its top-level import statements removed."""
    tree = parse(code)
    lines = code.splitlines(keepends=True)
    dropped = {index for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))
               for index in range(node.lineno - 1, node.end_lineno)}  # fmt: skip
    return "".join(line for index, line in enumerate(lines) if index not in dropped)


@pytest.mark.timeout(600)
async def test_every_sanitized_mbpp_reference_solution_passes_with_and_without_its_own_imports(sandbox):
    """The tests see the task's imports as trusted setup, whatever the program imports (Mbpp/596)."""
    raw = {f"Mbpp/{r['task_id']}": r["code"]
           for r in json.loads((data_file("sanitized-mbpp.json")).read_text())}
    problems = load_problems(data_file("sanitized-mbpp.json"))
    limits = Limits(wall_seconds=20.0, cpu_seconds=20)
    stripped = {p.task_id: without_imports(raw[p.task_id]) for p in problems}
    assert sum(stripped[p.task_id] != raw[p.task_id] for p in problems) > 50  # many import something
    for programs in (raw, stripped):
        results = await asyncio.gather(*(
            sandbox.run(RunRequest(programs[p.task_id], p.hidden_tests, limits, (p.entry_point,),
                                   setup=p.setup))
            for p in problems))
        failed = [p.task_id for p, r in zip(problems, results) if not r.all_passed]
        assert failed == []
    # ...and without the task's setup, the stripped programs fail: the check can fail.
    no_setup = await asyncio.gather(*(
        sandbox.run(RunRequest(stripped[p.task_id], p.hidden_tests, limits, (p.entry_point,)))
        for p in problems if stripped[p.task_id] != raw[p.task_id]))
    assert sum(not r.all_passed for r in no_setup) > 10
