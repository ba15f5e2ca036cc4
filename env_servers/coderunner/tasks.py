"""The task sets the code runner serves: vendored benchmarks plus any extra files.

Splits (the first is the default), read from the vendored files of package
lats_data (or from the folder the settings name, `--data-dir` / LATS_CODERUNNER_DATA):
  humaneval       HumanEval, 164 problems (ids HumanEval/0 ...)
  lats-humaneval  the 160-problem MultiPL-E HumanEval the LATS code used (HumanEval_23_strlen ...)
  lats-mbpp       the LATS paper's 397-problem MBPP subset (mbpp_234_volume_cube ...)
  mbpp-sanitized  sanitized MBPP, 427 problems (ids Mbpp/2 ...)
An extra file in one of these formats becomes a split named after the file
(its name without .json / .jsonl / .gz). Files are read when first used.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from env_servers.coderunner.problems import Problem, load_problems
from env_servers.core.errors import InvalidRequest, TaskNotFound
from lats_runtime.resources import data_file

BUILTIN_SPLITS = {
    "humaneval": "HumanEval.jsonl.gz",
    "lats-humaneval": "lats_humaneval-py.jsonl",
    "lats-mbpp": "lats_mbpp-py.jsonl",
    "mbpp-sanitized": "sanitized-mbpp.json",
}


def split_name(path: Path) -> str:
    """`my-tasks` for my-tasks.jsonl, my-tasks.json or my-tasks.jsonl.gz."""
    return re.sub(r"(\.jsonl?)?(\.gz)?$", "", path.name)


class TaskSet:
    """Problems by split and by task id (ids are unique across all splits)."""

    def __init__(self, data_dir: Path | None = None, extra_files: Sequence[Path] = ()):
        self._files = {split: (data_dir / name if data_dir else data_file(name))
                       for split, name in BUILTIN_SPLITS.items()}
        for path in extra_files:
            name = split_name(path)
            if name in self._files:
                raise ValueError(f"an extra task file is named like split {name!r}; rename it")
            if not path.is_file():
                raise FileNotFoundError(f"task file {path} does not exist")
            self._files[name] = path
        self._loaded: dict[str, list[Problem]] = {}
        self._by_id: dict[str, Problem] = {}

    @property
    def splits(self) -> tuple[str, ...]:
        return tuple(self._files)

    def problems(self, split: str) -> list[Problem]:
        if split not in self._files:
            raise InvalidRequest(f"unknown split {split!r}; choose one of {', '.join(self._files)}")
        if split not in self._loaded:
            path = self._files[split]
            if not path.is_file():
                raise FileNotFoundError(
                    f"task file {path} of split {split!r} is missing; give --data-dir "
                    "(LATS_CODERUNNER_DATA) the folder holding the benchmark files"
                )
            problems = load_problems(path)
            for problem in problems:
                known = self._by_id.setdefault(problem.task_id, problem)
                if known is not problem:
                    raise ValueError(f"task id {problem.task_id!r} of {path} is used by "
                                     "another split")
            self._loaded[split] = problems
        return self._loaded[split]

    def ids(self, split: str) -> list[str]:
        return [problem.task_id for problem in self.problems(split)]

    def get(self, task_id: str) -> Problem:
        if task_id not in self._by_id:
            for split in self._files:
                self.problems(split)
                if task_id in self._by_id:
                    break
        try:
            return self._by_id[task_id]
        except KeyError:
            raise TaskNotFound(
                f"unknown task {task_id[:80]!r}; ids look like HumanEval/0, "
                "mbpp_234_volume_cube or Mbpp/2; ListTasks lists them per split"
            ) from None
