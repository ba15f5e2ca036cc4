"""The task sets the code runner serves: vendored benchmarks plus any extra files.

Splits (the first is the default), read from the vendored files of package
lats_data (or from the folder the settings name, `--data-dir` / LATS_CODERUNNER_DATA):
  humaneval       HumanEval, 164 problems (ids HumanEval/0 ...)
  lats-humaneval  the 160-problem MultiPL-E HumanEval the LATS code used (HumanEval_23_strlen ...)
  lats-mbpp       the LATS paper's 397-problem MBPP subset (mbpp_234_volume_cube ...)
  mbpp-sanitized  sanitized MBPP, 427 problems (ids Mbpp/2 ...)
  lats-mbpp-hard  a frozen subset of mbpp-sanitized: at most 40 LATS-MBPP problems, each as
                  its mbpp-sanitized statement (Mbpp/N), whose greedy program (the 1.5B
                  model's cot answer) fails the statement's own example; the ids, in order,
                  and their provenance are in lats_mbpp_hard.json (bench/hard_split.py)
A subset split serves the same Problem objects as the split it is drawn from
(ids stay unique across splits); its list is the vendored one unless the data
folder holds its own. An extra file in one of these formats becomes a split
named after the file (its name without .json / .jsonl / .gz). Files are read
when first used.
"""

from __future__ import annotations

import json
import re
import threading
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
# split -> (the file listing its task ids under "task_ids", the split they are drawn from)
SUBSET_SPLITS = {
    "lats-mbpp-hard": ("lats_mbpp_hard.json", "mbpp-sanitized"),
}


def split_name(path: Path) -> str:
    """`my-tasks` for my-tasks.jsonl, my-tasks.json or my-tasks.jsonl.gz."""
    return re.sub(r"(\.jsonl?)?(\.gz)?$", "", path.name)


class TaskSet:
    """Problems by split and by task id (ids are unique across all splits).

    Splits load on first use, under a lock: the servicer may call from several
    threads at once (Reset runs off the event loop)."""

    def __init__(self, data_dir: Path | None = None, extra_files: Sequence[Path] = ()):
        self._files = {split: (data_dir / name if data_dir else data_file(name))
                       for split, name in BUILTIN_SPLITS.items()}
        self._data_dir = data_dir
        self._subsets = dict(SUBSET_SPLITS)
        for path in extra_files:
            name = split_name(path)
            if name in self._files or name in self._subsets:
                raise ValueError(f"an extra task file is named like split {name!r}; rename it")
            if not path.is_file():
                raise FileNotFoundError(f"task file {path} does not exist")
            self._files[name] = path
        self._loaded: dict[str, list[Problem]] = {}
        self._by_id: dict[str, Problem] = {}
        self._lock = threading.RLock()  # reentrant: a subset loads its base split

    @property
    def splits(self) -> tuple[str, ...]:
        builtin = tuple(BUILTIN_SPLITS)
        return builtin + tuple(self._subsets) + tuple(s for s in self._files if s not in builtin)

    def problems(self, split: str) -> list[Problem]:
        with self._lock:
            return self._problems(split)

    def _problems(self, split: str) -> list[Problem]:
        if split in self._subsets:
            if split not in self._loaded:
                self._loaded[split] = self._subset(*self._subsets[split])
            return self._loaded[split]
        if split not in self._files:
            raise InvalidRequest(f"unknown split {split!r}; choose one of {', '.join(self.splits)}")
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

    def _subset(self, name: str, base: str) -> list[Problem]:
        """The problems of `base` that the list lists, in its order (the same objects)."""
        path = _subset_file(self._data_dir, name)
        ids = json.loads(path.read_text(encoding="utf-8"))["task_ids"]
        by_id = {problem.task_id: problem for problem in self.problems(base)}
        unknown = [task_id for task_id in ids if task_id not in by_id]
        if unknown or len(set(ids)) != len(ids):
            raise ValueError(f"{path} must list distinct task ids of split {base!r}"
                             + (f"; unknown: {', '.join(unknown[:5])}" if unknown else ""))
        return [by_id[task_id] for task_id in ids]

    def ids(self, split: str) -> list[str]:
        return [problem.task_id for problem in self.problems(split)]

    def get(self, task_id: str) -> Problem:
        with self._lock:
            if task_id not in self._by_id:
                for split in self._files:   # subsets hold no problem of their own
                    self._problems(split)
                    if task_id in self._by_id:
                        break
        try:
            return self._by_id[task_id]
        except KeyError:
            raise TaskNotFound(
                f"unknown task {task_id[:80]!r}; ids look like HumanEval/0, "
                "mbpp_234_volume_cube or Mbpp/2; ListTasks lists them per split"
            ) from None


def _subset_file(data_dir: Path | None, name: str) -> Path:
    """The data folder's copy of a subset list, else the vendored one."""
    return data_dir / name if data_dir and (data_dir / name).is_file() else data_file(name)
