"""The Game-of-24 puzzles (the vendored 24.csv) and their splits.

Task ids are `game24/<row>` with the 0-based row of the puzzle list. Splits:
`test` = rows 900-999 (the standard Tree-of-Thoughts split, the default),
`train` = every other row, `all` = every row.

The csv is the one the settings name (`--data` / LATS_GAME24_DATA), else the
vendored `24.csv` of package lats_data.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from env_servers.core.errors import InvalidRequest, TaskNotFound
from lats_runtime.resources import data_file

TEST_ROWS = range(900, 1000)
SPLITS = ("test", "train", "all")
_TASK_ID = re.compile(r"^game24/(\d{1,6})$")


def default_data_path() -> Path:
    return data_file("24.csv")


def task_id(row: int) -> str:
    return f"game24/{row}"


class PuzzleSet:
    """The puzzles of one csv (column `Puzzles`, e.g. "4 4 6 8")."""

    def __init__(self, path: Path | None = None):
        path = path or default_data_path()
        try:
            with open(path, newline="", encoding="utf-8") as handle:
                rows = list(csv.DictReader(handle))
        except FileNotFoundError as error:
            raise FileNotFoundError(
                f"Game-of-24 puzzles not found at {path}; give --data (LATS_GAME24_DATA) "
                "the path of a puzzle csv"
            ) from error
        self._puzzles = [tuple(int(n) for n in row["Puzzles"].split()) for row in rows]

    def __len__(self) -> int:
        return len(self._puzzles)

    def ids(self, split: str) -> list[str]:
        rows = range(len(self._puzzles))
        if split == "test":
            chosen = [r for r in rows if r in TEST_ROWS]
        elif split == "train":
            chosen = [r for r in rows if r not in TEST_ROWS]
        elif split == "all":
            chosen = list(rows)
        else:
            raise InvalidRequest(f"unknown split {split!r}; choose one of {', '.join(SPLITS)}")
        return [task_id(r) for r in chosen]

    def numbers(self, task: str) -> tuple[int, ...]:
        match = _TASK_ID.match(task)
        if not match or int(match.group(1)) >= len(self._puzzles):
            raise TaskNotFound(
                f"unknown task {task[:80]!r}; ids look like game24/900 "
                f"(rows 0-{len(self._puzzles) - 1}); ListTasks lists them"
            )
        return self._puzzles[int(match.group(1))]
