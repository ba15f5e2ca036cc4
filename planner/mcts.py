"""Language Agent Tree Search (Zhou et al., 2024, Algorithm 1), domain-free.

One iteration of the search:
  1. Selection (planner.branching, by config.branching): with "uct" (the
     paper's), from the root follow the child with the highest UCT
     (planner.tree) among children not yet exhausted, down to a node that has
     not been expanded (with progressive widening, alpha = config.widening,
     or to an expanded node that may draw new children: fewer than
     ceil(N^alpha) draws so far); with "adaptive" (lats's), at every node
     from the root a new draw there (wider) competes with going into a child
     (deeper), by Thompson sampling on the graded rewards each choice has
     produced, and every draw's samples are recorded as observations.
  2. Expansion: sample n actions for it from the act prompt (one model call
     with n samples; at the root, with greedy_first, CoT's greedy attempt and
     n - 1 samples, and with greedy_gate no samples at all when the greedy
     attempt alone ends the search); identical actions become one child whose
     self-consistency is their share of the n, and with dedup a repeat of
     any node of the tree is merged into it. All children are stepped in one
     Step call on the parent's snapshot.
  3. Evaluation: each new non-terminal child is valued by the search's
     evaluator (planner.evaluation; by default V = lambda * LM + (1 - lambda)
     * SC), all children concurrently. A terminal child's value is its
     normalised reward; an action the environment rejected as invalid gets
     V = 0 without a model call, and so, with prune_loops, does a step that
     returned to a state its path had left (equal state keys): a loop is
     never explored, since the tree can branch from that state itself. With
     the LM value switched off (an ablation) the evaluator is SC alone and no
     call is made.
  4. Simulation: from the best new child, keep expanding and moving to the
     highest-value child until a terminal state, a loop or the depth limit.
  5. Backpropagation: the rollout's reward r (the normalised terminal reward,
     0 when the depth limit cut it off) updates N and V from the leaf to the root.
  6. Reflection: a failed rollout is reflected upon by the model; the
     reflection is kept in memory and shown in later act and value prompts
     (or, where every failed attempt gets its own reflection, attached to
     the attempt: made when it is evaluated, or with lazy_reflection when it
     is selected for expansion).
The search stops at the first terminal state whose reward reaches the
environment's success threshold (answer_rule "value"), or once a class of
answers that pass the environment's checks has stop_class_size samples
(answer_rule "agreement", planner.answers), after k iterations, when the model
budget is spent, or when every branch of the tree is exhausted.

Tree-parallel MCTS (P = config.parallel > 1): up to P iterations are in
flight at once, so a concurrent model backend is kept busy. Each selected
path, and each node its simulation moves into, carries a virtual loss (one
visit with reward 0 in UCT, planner.tree.uct_rule) until backpropagation
undoes it, so concurrent selections spread over the tree; a leaf being
expanded is never selected twice. k still bounds the iterations started; a
success starts no new ones and cancels those in flight (the model calls they
already made still count). P = 1 is the sequential search: the same
iteration body, one iteration at a time (no selection is ever in flight, so
UCT is the sequential rule to the last bit).

With reward_mode "honest" the environment's terminal rewards carry no ground
truth, so terminal states are valued by the model and never end the search
as a success. With the value rule the answer is then the best-valued
terminal state; with the agreement rule, where honest rewards check nothing,
every answer passes and the search stops once stop_class_size samples agree
on one (planner.answers).
"""

from __future__ import annotations

import asyncio
import random

from planner.branching import AdaptiveBranching, BetaPrior, UctDescent
from planner.context import SearchContext, derived_seed
from planner.model_client import BudgetExhausted
from planner.search import SearchResult, Strategy
from planner.tree import Node, SelectionRule, backpropagate, progressive_widening, uct_rule

SETTLED = "a class of answers that pass the environment's checks is big enough (stop_class_size)"
SUCCEEDED = "a terminal state reached the success threshold"
EXHAUSTED = "every branch of the tree is exhausted"


class Mcts(Strategy):
    """The MCTS loop above; `select_rule` (UCT branching only) defaults to UCT with
    the config's w, `parallel` (P) to the config's."""

    def __init__(self, select_rule: SelectionRule | None = None, parallel: int | None = None):
        self.select_rule = select_rule
        self.parallel = parallel

    async def search(self, ctx: SearchContext) -> SearchResult:
        return await _TreeSearch(ctx, self._policy(ctx),
                                 self.parallel or ctx.config.parallel).run()

    def _policy(self, ctx: SearchContext) -> UctDescent | AdaptiveBranching:
        """Where the next expansion goes, by config.branching (planner.branching)."""
        config = ctx.config
        if config.branching == "adaptive":
            rng = random.Random(derived_seed(config.seed, "branching", "root"))
            return AdaptiveBranching(BetaPrior(config.wider_prior, config.prior_strength),
                                     BetaPrior(config.deeper_prior, config.prior_strength),
                                     rng, ctx.may_draw,
                                     drawable_only=bool(config.unrefined_failures))
        alpha = config.widening
        return UctDescent(self.select_rule or uct_rule(config.exploration_weight),
                          progressive_widening(alpha) if alpha else None)


class _TreeSearch:
    """One MCTS search: P workers each running iterations over the one tree, with
    virtual loss on what an iteration in flight holds (P = 1: one at a time)."""

    def __init__(self, ctx: SearchContext, policy: UctDescent | AdaptiveBranching,
                 parallel: int):
        self.ctx, self.policy, self.parallel = ctx, policy, parallel
        self.started = 0              # iterations started (k bounds it)
        self.in_flight = 0
        self.finished = asyncio.Condition()
        self.solved = False           # a success, or the answer settled: start no more
        self.exhausted = False
        self.budget_error: BudgetExhausted | None = None
        self._workers: list[asyncio.Task] = []

    async def run(self) -> SearchResult:
        """Runs the workers until one stop condition holds; why the search stopped."""
        self._workers = [asyncio.create_task(self._worker()) for _ in range(self.parallel)]
        try:
            finished = await asyncio.gather(*self._workers, return_exceptions=True)
        finally:
            for worker in self._workers:    # the search itself was cancelled
                worker.cancel()
        for result in finished:
            if isinstance(result, BaseException) and not isinstance(result, asyncio.CancelledError):
                raise result
        if self.solved and self.ctx.answer_settled():
            return SearchResult(SETTLED)
        if self.solved:
            return SearchResult(SUCCEEDED, solved=True)
        if self.budget_error is not None:
            raise self.budget_error
        if self.exhausted:
            return SearchResult(EXHAUSTED)
        return SearchResult(f"iteration budget k={self.ctx.config.iterations} spent")

    def _stopped(self) -> bool:
        return (self.solved or self.exhausted or self.budget_error is not None
                or self.started >= self.ctx.config.iterations)

    async def _worker(self) -> None:
        """Starts iterations from free leaves until the search stops."""
        while not self._stopped():
            leaf = self.policy.select(self.ctx.root)
            if leaf is None:
                if self.in_flight == 0:
                    self.exhausted = True
                    return
                async with self.finished:            # wait for a running iteration
                    await self.finished.wait()
                continue
            self.started += 1
            self.ctx.iterations = self.started
            self.in_flight += 1
            try:
                await self._iteration(leaf, self.started)
            except BudgetExhausted as exc:
                self.budget_error = self.budget_error or exc
            finally:
                self.in_flight -= 1
                await self._wake()

    async def _wake(self) -> None:
        """Lets waiting workers look for a free leaf again (the tree changed)."""
        async with self.finished:
            self.finished.notify_all()

    async def _iteration(self, leaf: Node, iteration: int) -> None:
        """Expansion, simulation, backpropagation and reflection from `leaf`."""
        ctx, config = self.ctx, self.ctx.config
        held = leaf.path()                          # virtual loss until backpropagation
        for node in held:
            node.virtual_loss += 1
        try:
            ctx.events.iteration(iteration)
            ctx.events.selected(leaf, iteration)
            await ctx.reflect_before_expanding(leaf)
            children = await self._expand(leaf)
            if not children:
                if ctx.answer_settled():            # the samples repeated passing answers
                    self._stop_all()
                return
            end = await self._simulate(ctx.best(children), held)
        finally:
            for node in held:
                node.virtual_loss -= 1
        reward = self._rollout_reward(end)
        path = backpropagate(end, reward)
        ctx.events.backpropagated(end, reward, path)
        if ctx.answer_settled() or (ctx.is_success(end) and config.answer_rule != "agreement"):
            self._stop_all()
            return
        if (config.reflection and not config.complete_answer_actions
                and (end.terminal or end.depth >= config.max_depth)):
            await ctx.reflect(end)

    async def _simulate(self, start: Node, held: list[Node]) -> Node:
        """Greedy rollout by value from `start` to a terminal state or the depth limit,
        holding a virtual loss on each node it moves into; where it ended."""
        ctx, config = self.ctx, self.ctx.config
        node = start
        node.virtual_loss += 1
        held.append(node)
        while (config.simulate and not node.terminal and node.depth < config.max_depth
               and node.returns_to is None and not self.solved):
            children = await self._expand(node)
            if not children:
                break
            node = ctx.best(children)
            node.virtual_loss += 1
            held.append(node)
            if ctx.is_success(node) or ctx.answer_settled():
                break
        return node

    async def _expand(self, node: Node) -> list[Node]:
        """One draw at `node`, recorded by the selection policy; its new children."""
        draw = await self.ctx.expand_draw(node)
        self.policy.record(self.ctx, draw)
        await self._wake()
        return draw.children

    def _rollout_reward(self, leaf: Node) -> float:
        """r: a terminal state's normalised reward (its value in honest mode); 0 where
        the depth limit cut the rollout off (the leaf's value without simulation)."""
        if leaf.terminal:
            return leaf.value if self.ctx.honest else self.ctx.normalised(leaf.reward)
        return leaf.value if not self.ctx.config.simulate else 0.0

    def _stop_all(self) -> None:
        """The search has its answer: no new iterations, and those in flight are cancelled."""
        self.solved = True
        current = asyncio.current_task()
        for worker in self._workers:
            if worker is not current:
                worker.cancel()
