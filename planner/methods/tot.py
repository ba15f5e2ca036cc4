"""Tree of Thoughts (Yao et al., 2023) search over the LATS tree operations.

Both expand a state as LATS does (n actions from one act call, identical ones
merged, all children stepped in one Step call on the parent's snapshot and valued
V = lambda * LM + (1 - lambda) * SC), but replace MCTS's selection,
simulation and backpropagation:

  DFS  From the root, expand the state and visit its children best value
       first, skipping (pruning) children valued below `prune_below` and
       invalid actions; a success ends the search. A path ends at a terminal
       state or the depth limit, or at a state whose children were all pruned;
       each path end is one of at most k trajectories, and a failed one is
       reflected upon when reflection is on. As "tot_dfs" (lambda = 1, no
       reflection) this is ToT's DFS; as "lats_dfs" (LATS's value and
       reflection) it is the LATS paper's "LATS (DFS)" ablation: DFS instead
       of MCTS.
  BFS  ToT's Game-of-24 setting: level by level up to depth d, expand every
       state of the frontier; a success ends the search; the b = k best valid,
       non-terminal children form the next frontier.
"""

from __future__ import annotations

from planner.context import SearchContext
from planner.search import SearchResult, Strategy
from planner.tree import Node

PRUNE_BELOW = 0.3


class DfsSearch(Strategy):
    """Depth-first search with value pruning below `prune_below`; k bounds the trajectories."""

    def __init__(self, prune_below: float = PRUNE_BELOW):
        self.prune_below = prune_below
        self.trajectory = 1
        self.solution: Node | None = None

    @staticmethod
    def _by_value(ctx: SearchContext, children: list[Node]) -> list[Node]:
        """Successes first, then by value; ties keep the sampling order."""
        return sorted(children, key=lambda c: (ctx.is_success(c), c.value), reverse=True)

    async def _path_end(self, ctx: SearchContext, leaf: Node) -> bool:
        """Counts a finished trajectory (reflecting on it unless it was the
        last one); True when k are spent."""
        if self.trajectory >= ctx.config.iterations:
            return True
        if ctx.config.reflection and not ctx.config.complete_answer_actions:
            await ctx.reflect(leaf)
        self.trajectory += 1
        ctx.events.iteration(self.trajectory)
        return False

    async def _visit(self, ctx: SearchContext, node: Node) -> bool:
        """Expands `node` and descends; True when the search must stop."""
        ctx.events.selected(node, self.trajectory)
        children = self._by_value(ctx, await ctx.expand(node))
        descended = False
        for child in children:
            if ctx.is_success(child):
                self.solution = child
                return True
            if child.invalid_action or child.value < self.prune_below:
                continue
            descended = True
            if child.terminal or child.depth >= ctx.config.max_depth:
                if await self._path_end(ctx, child):
                    return True
            elif await self._visit(ctx, child):
                return True
        if not descended:
            return await self._path_end(ctx, children[0] if children else node)
        return False

    async def search(self, ctx: SearchContext) -> SearchResult:
        ctx.events.iteration(self.trajectory)
        stopped = await self._visit(ctx, ctx.root)
        ctx.iterations = self.trajectory
        if self.solution is not None:
            return SearchResult(f"trajectory {self.trajectory} reached the success threshold",
                                answer=self.solution)
        if stopped:
            return SearchResult(f"k={ctx.config.iterations} trajectories spent")
        return SearchResult("every branch above the pruning threshold is explored")


class BfsSearch(Strategy):
    """Breadth-first beam search: the b = k best states per depth."""

    async def search(self, ctx: SearchContext) -> SearchResult:
        beam = ctx.config.iterations
        frontier = [ctx.root]
        for level in range(1, ctx.config.max_depth + 1):
            ctx.iterations = level
            ctx.events.iteration(level)
            candidates: list[Node] = []
            for node in frontier:
                ctx.events.selected(node, level)
                for child in await ctx.expand(node):
                    if ctx.is_success(child):
                        return SearchResult(f"depth {level} reached the success threshold",
                                            answer=child)
                    if not child.terminal and not child.invalid_action:
                        candidates.append(child)
            frontier = sorted(candidates, key=lambda c: c.value, reverse=True)[:beam]
            if not frontier:
                return SearchResult(f"no state left to expand at depth {level}")
        return SearchResult(f"depth limit d={ctx.config.max_depth} reached")
