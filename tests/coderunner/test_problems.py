"""Dataset loading: the vendored benchmarks, format detection, and hidden tests
that accept the reference solutions (run for real in the sandbox)."""

from __future__ import annotations

import asyncio
import json

import pytest

from env_servers.coderunner.problems import DatasetError, load_problems
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


def test_mbpp_tests_carry_their_imports():
    volume = next(p for p in load_problems(data_file("sanitized-mbpp.json")) if p.task_id == "Mbpp/82")
    assert all(test.startswith("import math\nassert ") for test in volume.hidden_tests)


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
                               limits, (p.entry_point,))) for p in problems))
    failed = [p.task_id for p, r in zip(problems, results) if not r.all_passed]
    assert failed == []
    # ...and a wrong program fails them: the check can fail.
    wrong = await sandbox.run(RunRequest("def has_close_elements(numbers, threshold):\n"
                                         "    return False\n", problems[0].hidden_tests))
    assert not wrong.all_passed


async def test_every_sanitized_mbpp_reference_solution_passes_its_hidden_tests(sandbox):
    raw = {f"Mbpp/{r['task_id']}": r["code"]
           for r in json.loads((data_file("sanitized-mbpp.json")).read_text())}
    problems = load_problems(data_file("sanitized-mbpp.json"))
    limits = Limits(wall_seconds=20.0, cpu_seconds=20)
    results = await asyncio.gather(*(
        sandbox.run(RunRequest(raw[p.task_id], p.hidden_tests, limits, (p.entry_point,)))
        for p in problems))
    failed = [p.task_id for p, r in zip(problems, results) if not r.all_passed]
    assert failed == []
