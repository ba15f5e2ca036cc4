"""Reflexion (Shinn et al., 2023): retry with verbal lessons in memory.

Trial t is a ReAct trajectory from the initial state whose act prompts show
the reflections kept in memory. The environment gives a binary verdict: the
trial's terminal reward reaches the success threshold or not. On failure the
model reflects on the failed trajectory (the pack's reflect prompt), the
reflection joins the memory (the last `max_reflections`, default 3, are
shown), the environment is reset and the next trial starts, until a trial
passes or k trials are spent. No reflection is written after the last trial.

The heuristic stop of the original: a trial also ends, as a failure, after
d steps or when the agent takes the same action `REPEAT_LIMIT` times in a row.

Full-program domains (search_hints.reflect_each_failure: every step is a
complete attempt, and the pack shows each attempt's own reflection in the
branch) get Reflexion's programming loop instead: one trajectory in which a
trial is one attempt, "implement, test, reflect, implement again", with each
failed attempt's reflection attached to it; at most k attempts (and d), and
it stops when an attempt repeats the previous one.

In honest mode the verdict is the environment's own honest reward (e.g.
model-written tests), as in Reflexion's programming setting; the run is only
reported solved by the hidden-ground-truth score.
"""

from __future__ import annotations

from planner.lats import SearchOutcome
from planner.methods.base import SearchMethod, same_action

REPEAT_LIMIT = 3


class ReflexionSearch(SearchMethod):
    """Trials with a memory of reflections until one passes or k are spent."""

    async def search(self, outcome: SearchOutcome) -> None:
        if self.config.reflect_each_failure:
            await self._attempts_in_one_branch(outcome)
        else:
            await self._trials_with_memory(outcome)

    async def _trials_with_memory(self, outcome: SearchOutcome) -> None:
        k = self.config.iterations
        for trial in range(1, k + 1):
            outcome.iterations = trial
            self.events.iteration(trial)
            self.events.selected(self.root, trial)
            leaf, _ = await self.rollout(trial, self._recent_reflections(), REPEAT_LIMIT)
            if self.passed(leaf):
                outcome.answer = leaf
                outcome.reason = f"trial {trial} passed"
                return
            if trial < k and self.config.reflection and leaf is not self.root:
                await self._reflect(leaf)
        outcome.reason = f"{k} trials without success"

    async def _attempts_in_one_branch(self, outcome: SearchOutcome) -> None:
        k = self.config.iterations
        node = self.root
        for trial in range(1, k + 1):
            if node.terminal or node.depth >= self.config.max_depth:
                outcome.reason = f"the episode ended after {node.depth} attempts"
                return
            outcome.iterations = trial
            self.events.iteration(trial)
            self.events.selected(node, trial)
            action = await self.propose(node, (), key=f"{node.id}@{trial}")
            if not action:
                outcome.reason = "the model gave no attempt"
                return
            repeated = node is not self.root and same_action(node.action, action)
            node = await self.extend(node, action)
            if self.passed(node):
                outcome.answer = node
                outcome.reason = f"attempt {trial} passed"
                return
            if repeated:
                outcome.reason = f"attempt {trial} repeated the previous one"
                return
            if trial < k and self.config.reflection:
                await self._reflect(node)          # attached to this attempt
        outcome.reason = f"{k} attempts without success"
