"""Best of N: answers sampled at the root only, filtered by the environment's
checks and clustered by answer, with no tree.

The baseline that keeps tree search honest: the same first expansion as
LATS (CoT's greedy attempt, then n - 1 samples at the temperature; with
greedy_gate none when the greedy attempt alone ends the search), then
rounds of n fresh samples from the same root prompt, until a class of
answers that pass the environment's visible checks reaches
stop_class_size samples, k rounds are spent or the model budget is. No
value calls and no reflections: every call is spent on answers. The answer
is chosen by the agreement rule (planner.answers): the largest class of
passing answers (by answer key where the environment gives keys), ties to
the greedy attempt; if none passes, the greedy attempt. Repeats (same text,
or same answer key) are merged into the node they repeat, never stepped
twice.

k = rounds of sampling (the first is the greedy attempt plus n - 1).
"""

from __future__ import annotations

from planner.context import SearchContext
from planner.search import SearchResult, Strategy


class BestOfN(Strategy):
    """Rounds of n samples at the root; the agreement rule picks the answer."""

    async def search(self, ctx: SearchContext) -> SearchResult:
        k = ctx.config.iterations
        for draw in range(1, k + 1):
            if ctx.root.exhausted:
                return SearchResult("every draw repeated answers already found")
            ctx.iterations = draw
            ctx.events.iteration(draw)
            ctx.events.selected(ctx.root, draw)
            await ctx.expand(ctx.root)
            if ctx.answer_settled():
                return SearchResult(f"a class of passing answers reached "
                                    f"{max(1, ctx.config.stop_class_size)} samples "
                                    f"after {draw} draws")
        return SearchResult(f"{k} draws spent")
