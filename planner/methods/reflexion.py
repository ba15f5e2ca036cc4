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
failed attempt's reflection attached to it; at most k attempts (and d). An
attempt that repeats an earlier one is not stepped: it is sampled again with
temperature (up to RESAMPLES times, each a model call), and only a model that
keeps repeating itself ends the loop early.

In honest mode the verdict is the environment's own honest reward (e.g.
model-written tests), as in Reflexion's programming setting; the run is only
reported solved by the hidden-ground-truth score.
"""

from __future__ import annotations

from planner.context import SearchContext
from planner.prompting import action_key
from planner.search import SearchResult, Strategy

REPEAT_LIMIT = 3
RESAMPLES = 3                 # fresh samples asked for when an attempt repeats an earlier one
RESAMPLE_TEMPERATURE = 1.0


class ReflexionSearch(Strategy):
    """Trials with a memory of reflections until one passes or k are spent."""

    async def search(self, ctx: SearchContext) -> SearchResult:
        if ctx.config.complete_answer_actions:
            return await self._attempts_in_one_branch(ctx)
        return await self._trials_with_memory(ctx)

    async def _trials_with_memory(self, ctx: SearchContext) -> SearchResult:
        k = ctx.config.iterations
        for trial in range(1, k + 1):
            ctx.iterations = trial
            ctx.events.iteration(trial)
            ctx.events.selected(ctx.root, trial)
            leaf, _ = await ctx.rollout(trial, ctx.recent_reflections(), REPEAT_LIMIT)
            if ctx.passed(leaf):
                return SearchResult(f"trial {trial} passed", answer=leaf)
            if trial < k and ctx.config.reflection and leaf is not ctx.root:
                await ctx.reflect(leaf)
        return SearchResult(f"{k} trials without success")

    async def _attempts_in_one_branch(self, ctx: SearchContext) -> SearchResult:
        k = ctx.config.iterations
        node = ctx.root
        for trial in range(1, k + 1):
            if node.terminal or node.depth >= ctx.config.max_depth:
                return SearchResult(f"the episode ended after {node.depth} attempts")
            ctx.iterations = trial
            ctx.events.iteration(trial)
            ctx.events.selected(node, trial)
            action = await self._new_attempt(ctx, node, trial)
            if not action:
                return SearchResult("the model gave no attempt")
            if action_key(action) in _attempted(node):
                return SearchResult(f"attempt {trial} repeated an earlier one "
                                    f"{1 + RESAMPLES} times")
            node = await ctx.extend(node, action)
            if ctx.passed(node):
                return SearchResult(f"attempt {trial} passed", answer=node)
            if trial < k and ctx.config.reflection:
                await ctx.reflect(node)          # attached to this attempt
        return SearchResult(f"{k} attempts without success")

    @staticmethod
    async def _new_attempt(ctx: SearchContext, node, trial: int) -> str:
        """The next attempt; one that repeats an earlier attempt of the branch
        is sampled again at RESAMPLE_TEMPERATURE, up to RESAMPLES times (each
        one model call), so a greedy repeat leads to a different attempt."""
        action = await ctx.propose(node, (), key=f"{node.id}@{trial}")
        earlier = _attempted(node)
        for again in range(1, RESAMPLES + 1):
            if not action or action_key(action) not in earlier:
                break
            action = await ctx.propose(node, (), key=f"{node.id}@{trial}#{again}",
                                       temperature=max(ctx.config.temperature,
                                                       RESAMPLE_TEMPERATURE))
        return action


def _attempted(node) -> set[str]:
    """The attempts made in the branch down to `node`."""
    return {action_key(step.action) for step in node.trajectory()}
