"""A samples file the official human-eval evaluator takes as written, with the
problem file of the bench's own subset beside it.

human-eval's `evaluate_functional_correctness SAMPLES --problem_file=PROBLEMS`
reads every problem of PROBLEMS, insists each was attempted, and runs
`prompt + completion + test + check(entry_point)` per sample. So:

* task ids are mapped to HumanEval's: `HumanEval/23` stays, and the LATS
  paper's MultiPL-E ids (`HumanEval_23_strlen`, split lats-humaneval) become
  `HumanEval/23`;
* the problem file holds exactly the bench's tasks. A HumanEval task's record
  is the official one, byte for byte from the vendored HumanEval.jsonl.gz
  (the official tests, not MultiPL-E's translation of them). Any other task
  (MBPP, extra task files) gets a record in the same format built from our
  problem: the task's setup and hidden tests run at module level, where a
  failing assert fails the sample, and `check` has nothing left to do;
* `evaluation_command` is the line that checks the files.
"""

from __future__ import annotations

import gzip
import json
import re
import shlex
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from env_servers.coderunner.problems import Problem
from env_servers.coderunner.samples import sample_line
from lats_runtime.resources import data_file

HUMANEVAL_FILE = "HumanEval.jsonl.gz"
_MULTIPL_E_ID = re.compile(r"^HumanEval_(\d{1,3})_\w+$")


@lru_cache(maxsize=1)
def official_records() -> dict[str, dict]:
    """HumanEval's 164 problems by task id, as the official file has them."""
    with gzip.open(data_file(HUMANEVAL_FILE), "rt", encoding="utf-8") as handle:
        return {record["task_id"]: record
                for record in (json.loads(line) for line in handle if line.strip())}


def official_id(task_id: str) -> str | None:
    """HumanEval's id for one of our task ids, or None when it is no HumanEval task."""
    match = _MULTIPL_E_ID.match(task_id)
    candidate = f"HumanEval/{int(match.group(1))}" if match else task_id
    return candidate if candidate in official_records() else None


def converted_record(problem: Problem) -> dict:
    """A human-eval problem record for a task that has no official one."""
    test = "\n\n".join(part for part in (problem.setup, *problem.hidden_tests) if part.strip())
    return {"task_id": problem.task_id, "prompt": problem.prompt,
            "entry_point": problem.entry_point, "canonical_solution": "",
            "test": f"{test}\n\n\ndef check(candidate):\n    pass\n"}


def problem_record(task_id: str, problem_of) -> dict:
    """The human-eval record of a task: the official one, or one converted from our
    problem (`problem_of(task_id)` gives it; KeyError-like failures propagate)."""
    official = official_id(task_id)
    if official is not None:
        return official_records()[official]
    return converted_record(problem_of(task_id))


def write_evaluation_files(samples_path: Path, problems_path: Path,
                           answers: Iterable[tuple[str, str]], problem_of) -> int:
    """Writes the samples (one line per (task id, final action), ids mapped) and the
    problem file of their tasks; returns how many samples. Every task must appear
    in `answers` once at least, as the evaluator insists."""
    samples, records = [], {}
    for task_id, action in answers:
        record = problem_record(task_id, problem_of)
        records.setdefault(record["task_id"], record)
        samples.append(sample_line(record["task_id"], action, record["entry_point"]))
    samples_path.write_text("".join(line + "\n" for line in samples), encoding="utf-8")
    problems_path.write_text("".join(json.dumps(record, ensure_ascii=False) + "\n"
                                     for record in records.values()), encoding="utf-8")
    return len(samples)


def evaluation_command(samples_path: Path, problems_path: Path) -> str:
    """The shell line that runs the official evaluator on the two files."""
    return (f"evaluate_functional_correctness {shlex.quote(str(samples_path))} "
            f"--problem_file={shlex.quote(str(problems_path))}")
