"""human-eval samples.jsonl: the format, and that the official harness's
program (prompt + completion + test + check) passes for a right answer and
fails for a wrong one."""

from __future__ import annotations

import json

from env_servers.coderunner.samples import (completion, program_samples, read_samples,
                                            write_samples)
from env_servers.sandbox import RunRequest
from tests.coderunner.conftest import canonical_program

RIGHT = "Here:\n```python\ndef add(x: int, y: int):\n    return x + y\n```\nDone."
WRONG = "def add(x: int, y: int):\n    return x - y\n"


def test_samples_are_task_id_and_completion_lines(tmp_path):
    path = tmp_path / "samples.jsonl"
    assert write_samples(path, [("HumanEval/53", RIGHT), ("HumanEval/0", "no code at all")]) == 2
    lines = path.read_text().splitlines()
    assert [set(json.loads(line)) for line in lines] == [{"task_id", "completion"}] * 2
    assert read_samples(path) == [
        {"task_id": "HumanEval/53", "completion": "\ndef add(x: int, y: int):\n    return x + y\n"},
        {"task_id": "HumanEval/0", "completion": ""},
    ]
    write_samples(path, [("HumanEval/2", WRONG)], append=True)
    assert [s["task_id"] for s in read_samples(path)] == [
        "HumanEval/53", "HumanEval/0", "HumanEval/2"]


def test_program_samples_repeat_each_program_once_per_sample():
    assert program_samples("HumanEval/53", [(RIGHT, 2), (WRONG, 1), ("no code", 0)]) == [
        ("HumanEval/53", RIGHT), ("HumanEval/53", RIGHT), ("HumanEval/53", WRONG),
        ("HumanEval/53", "no code")]
    assert program_samples("HumanEval/0", []) == [("HumanEval/0", "")]   # attempted, failed


def test_entry_points_pick_the_right_block():
    reply = ("```python\ndef helper():\n    return 1\n```\n"
             "```python\ndef add(x, y):\n    return x + y\n```")
    assert "def add" in completion(reply, "add") and "helper" not in completion(reply, "add")


async def _official_harness_passes(sandbox, record, completion_text) -> bool:
    """What human-eval's evaluate_functional_correctness runs for one sample."""
    program = (record["prompt"] + completion_text + "\n" + record["test"] + "\n"
               + f"check({record['entry_point']})")
    return (await sandbox.run(RunRequest(program, ()))).all_passed


async def test_completions_pass_the_official_harness_exactly_when_right(sandbox, humaneval_records):
    record = humaneval_records["HumanEval/53"]
    assert await _official_harness_passes(sandbox, record, completion(RIGHT, "add"))
    assert not await _official_harness_passes(sandbox, record, completion(WRONG, "add"))
    full = canonical_program(humaneval_records["HumanEval/0"])
    assert await _official_harness_passes(sandbox, humaneval_records["HumanEval/0"],
                                          completion(full))
