"""human-eval `samples.jsonl`: one {"task_id", "completion"} object per line, so
the official `evaluate_functional_correctness samples.jsonl` can re-score a run.

A sample is (task_id, action): the chosen trajectory's last action (the model's
reply) or a bare program. The program is extracted exactly as the server does
for Step; a reply with no code becomes an empty completion (a failure).

A search samples many programs, though, and the field reports pass@k from k or
more samples per task (`evaluate_functional_correctness` reports pass@k for each
k that every task has samples for). `program_samples` gives a task's samples
for such a file: every program the search sampled, once per sample that gave
it. Its pass@1 is the share of the search's samples that pass, not the search's
answer; the answer stays in the one-per-task file.

The official harness executes `prompt + completion + test + check(entry_point)`.
Our programs are full implementations, so a completion is the whole program:
after the prompt's docstring-only function it redefines the entry point. The
harness therefore also sees the prompt's imports and helper functions, which
our own Score (the program alone, in a fresh process) does not give it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from env_servers.coderunner.extraction import NoCodeFound, extract_program


def completion(action: str, entry_point: str = "") -> str:
    """The human-eval completion for a final action: its program, after a newline."""
    try:
        return "\n" + extract_program(action, entry_point)
    except NoCodeFound:
        return ""


def sample_line(task_id: str, action: str, entry_point: str = "") -> str:
    """One samples.jsonl line (no trailing newline)."""
    return json.dumps({"task_id": task_id, "completion": completion(action, entry_point)},
                      ensure_ascii=False)


def write_samples(path: str | Path, samples: Iterable[tuple[str, str]],
                  entry_points: Mapping[str, str] | None = None, append: bool = False) -> int:
    """Writes (task_id, action) pairs to `path` as samples.jsonl; returns how many.

    `entry_points` (task_id -> function name) picks the right block when a reply
    holds several; without it the first block with a definition is used.
    """
    entry_points = entry_points or {}
    count = 0
    with open(path, "a" if append else "w", encoding="utf-8") as handle:
        for task_id, action in samples:
            handle.write(sample_line(task_id, action, entry_points.get(task_id, "")) + "\n")
            count += 1
    return count


def program_samples(task_id: str, programs: Iterable[tuple[str, int]]) -> list[tuple[str, str]]:
    """(task_id, action) once per sample for each (action, samples) the search gave,
    in order; a search that sampled no program counts as one empty sample (a
    failure), as the evaluator insists that every task is attempted."""
    samples = [(task_id, action) for action, count in programs for _ in range(max(1, count))]
    return samples or [(task_id, "")]


def read_samples(path: str | Path) -> list[dict[str, str]]:
    """The {"task_id", "completion"} objects of a samples.jsonl file, in order."""
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]
