"""LATS on one environment, then on another upon failure (the paper's
"CoT then ReAct" for HotPotQA: search the reasoning-only variant first, and if
that search does not succeed, search the acting variant of the same task).

The second search starts with the first one's reflections in its memory and
shares its model budget and event stream; the result is the second search's
answer, with both searches' iterations and expansions counted. In an
environment whose reward_mode is "honest" nothing ever counts as success
during search, so the second search always runs.
"""

from __future__ import annotations

from planner.environment_client import TaskRef
from planner.lats import LatsSearch, SearchOutcome


class FallbackSearch(LatsSearch):
    """LATS here; then LATS on `fallback_env` (set by the caller) if it failed."""

    fallback_env = None  # an EnvironmentClient (or anything with its interface)

    async def run(self) -> SearchOutcome:
        first = await super().run()
        if first.status == "solved" or self.fallback_env is None:
            return first
        description = await self.fallback_env.describe()
        task = TaskRef(self.task.task_id, self.task.inline_task, (), self.task.seed)
        second = LatsSearch(self.fallback_env, description, self.model, self.config, task,
                            self.events)
        second.reflections = list(self.reflections)
        outcome = await second.run()
        outcome.iterations += first.iterations
        outcome.wall_seconds += first.wall_seconds
        outcome.reason = f"first search: {first.reason}; fallback search: {outcome.reason}"
        self.nodes_expanded += second.nodes_expanded
        self.reflections = second.reflections
        self.root, self.description = second.root, description
        outcome.nodes_expanded = self.nodes_expanded
        return outcome
