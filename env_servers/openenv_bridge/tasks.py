"""The tasks the bridge lists: seeds, or the resets a pack file names.

OpenEnv has no task list: an episode is whatever `reset(**kwargs)` starts. By
default task `seed-N` is `reset(seed=N)`. A pack file may list tasks instead:

    [[tasks.list]]
    id = "easy-1"
    reset = { seed = 1, difficulty = "easy" }
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lats_runtime.quoting import quoted

from env_servers.core import TaskNotFound
from env_servers.pack_file import PackFileError

SEED_PREFIX = "seed-"


@dataclass(frozen=True)
class TaskList:
    seeds: int = 0                                   # seed-0..seed-(seeds-1)
    named: Mapping[str, Mapping[str, Any]] | None = None

    @classmethod
    def from_pack(cls, section: Mapping[str, Any], default_seeds: int,
                  path: str = "<pack>") -> TaskList:
        unknown = set(section) - {"seeds", "list"}
        if unknown:
            raise PackFileError(f"{path}: [tasks] takes seeds or list, not "
                                f"{', '.join(sorted(unknown))}")
        if "list" in section:
            if not isinstance(section["list"], list):
                raise PackFileError(f"{path}: tasks.list must be an array of tables "
                                    "([[tasks.list]])")
            named: dict[str, dict] = {}
            for index, entry in enumerate(section["list"]):
                task_id = entry.get("id") if isinstance(entry, Mapping) else None
                reset = entry.get("reset", {}) if isinstance(entry, Mapping) else None
                if not (isinstance(task_id, str) and task_id.strip()
                        and isinstance(reset, Mapping)):
                    raise PackFileError(f"{path}: tasks.list[{index}] needs an id (text) and "
                                        "a reset table")
                if task_id in named:
                    raise PackFileError(f"{path}: task id {task_id!r} is listed twice")
                named[task_id] = dict(reset)
            if not named:
                raise PackFileError(f"{path}: tasks.list is empty")
            return cls(named=named)
        seeds = section.get("seeds", default_seeds)
        if type(seeds) is not int or seeds < 1:
            raise PackFileError(f"{path}: tasks.seeds must be a positive whole number")
        return cls(seeds=seeds)

    def ids(self) -> list[str]:
        if self.named is not None:
            return list(self.named)
        return [f"{SEED_PREFIX}{n}" for n in range(self.seeds)]

    def reset_kwargs(self, task_id: str) -> dict[str, Any]:
        """What `reset` gets for the task; TaskNotFound for an unknown id."""
        if self.named is not None:
            if task_id in self.named:
                return dict(self.named[task_id])
        else:
            digits = task_id[len(SEED_PREFIX):] if task_id.startswith(SEED_PREFIX) else ""
            if digits.isdigit() and digits == str(int(digits)) and int(digits) < self.seeds:
                return {"seed": int(digits)}
        raise TaskNotFound(f"unknown task {quoted(task_id)}; ListTasks lists the "
                           f"{len(self.ids())} tasks")
