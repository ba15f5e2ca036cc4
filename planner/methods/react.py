"""ReAct (Yao et al., 2023) and ReAct best-of-k.

A trajectory: at each state the act prompt gives ONE next action (n = 1), the
environment steps it and the observation joins the trajectory in the next
prompt, until a terminal state or the depth limit d. No value calls, no
reflections.

  react      one trajectory, greedy (temperature 0 unless the request sets one).
  react_bok  up to k independently sampled trajectories (temperature 1 unless
             set); the first whose terminal reward reaches the environment's
             success threshold ends the run, and so does a class of
             stop_class_size equal answers that pass the environment's checks.
             The answer is chosen by agreement (planner.answers): in honest
             mode, where no reward reveals success, the answer most
             trajectories gave.
"""

from __future__ import annotations

from planner.context import SearchContext
from planner.search import SearchResult, Strategy


class TrajectorySampler(Strategy):
    """k ReAct trajectories from the root; stops at the first success."""

    async def search(self, ctx: SearchContext) -> SearchResult:
        k = ctx.config.iterations
        for trial in range(1, k + 1):
            ctx.iterations = trial
            ctx.events.iteration(trial)
            ctx.events.selected(ctx.root, trial)
            leaf, _ = await ctx.rollout(trial)
            if ctx.is_success(leaf):
                return SearchResult(f"trajectory {trial} reached the success threshold")
            if ctx.answer_settled():
                return SearchResult(f"{ctx.config.stop_class_size} trajectories gave one answer")
        return SearchResult(f"{k} trajectories without success")
