"""A search: one strategy run over one search context (planner.context).

A strategy (planner.mcts for MCTS, planner.methods for the others) is a
small object with one job: `search(ctx)` grows the tree from `ctx.root` with
the context's operations, keeps `ctx.iterations` (what k counts for the
method) up to date, and returns a `SearchResult`: why it stopped and, if it
chose one, its answer; `choose_answer(ctx)` picks the node to report when it
did not. Variants are constructor arguments (a selection rule, a pruning
threshold), not subclasses. The value function is the context's evaluator
(planner.evaluation), chosen from the settings unless one is passed in.

`Search.run()` wraps it: start the episode, stop gracefully when the model
budget is spent, choose and score the answer, time the run. With a fallback
environment (the "lats_fallback" method) a failed search is followed by the
same strategy on that environment in a fresh context that starts with the
first one's reflections; the search then reports the second context.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from lats_pb import environment_pb2 as env_pb
from lats_runtime.run_status import RunStatus

from planner.context import SearchContext
from planner.environment import Environment, TaskRef
from planner.evaluation import Evaluator, evaluator_for
from planner.events import EventSink
from planner.model_client import BudgetExhausted, ModelClient
from planner.search_config import LatsConfig
from planner.tree import Node


@dataclass
class SearchOutcome:
    status: RunStatus             # SOLVED | FAILED (ERROR: the search raised)
    answer: Node | None
    reason: str = ""
    iterations: int = 0
    nodes_expanded: int = 0
    wall_seconds: float = 0.0
    score: env_pb.ScoreResponse | None = None
    reflections: list[str] = field(default_factory=list)
    answer_reason: str = ""       # why the answer was chosen (answer_rule "agreement")


@dataclass
class SearchResult:
    """What a strategy's search returns: why it stopped, the answer if it chose one,
    and whether it knows the search succeeded (a terminal state reached the
    success threshold)."""

    reason: str
    answer: Node | None = None
    solved: bool = False


class Strategy:
    """How a method grows the tree; see the module docstring."""

    async def search(self, ctx: SearchContext) -> SearchResult:
        raise NotImplementedError

    def choose_answer(self, ctx: SearchContext) -> Node | None:
        return ctx.default_answer()


class Search:
    """One search of one task. Create, then `await run()`."""

    def __init__(self, env: Environment, description: env_pb.DescribeResponse,
                 model: ModelClient, config: LatsConfig, task: TaskRef, events: EventSink,
                 strategy: Strategy, make_strategy=None, fallback_env: Environment | None = None,
                 evaluator: Evaluator | None = None):
        self.evaluator = evaluator or evaluator_for(config)
        self.context = SearchContext(env, description, model, config, task, events,
                                     self.evaluator)
        self.strategy = strategy
        self._make_strategy = make_strategy or (lambda: strategy)
        self.fallback_env = fallback_env

    # what the service reports: the current context's tree and accounting
    @property
    def root(self) -> Node | None:
        return self.context.root

    @property
    def nodes_expanded(self) -> int:
        return self.context.nodes_expanded

    @property
    def reflections(self) -> list[str]:
        return self.context.reflections

    @property
    def description(self) -> env_pb.DescribeResponse:
        return self.context.description

    def partial_outcome(self, status: RunStatus) -> SearchOutcome:
        """What a search that ended abnormally (an environment or gateway failure) got
        through: its iterations and expansions so far, no answer."""
        return SearchOutcome(status=status, answer=None, iterations=self.context.iterations,
                             nodes_expanded=self.context.nodes_expanded,
                             reflections=list(self.context.reflections))

    async def run(self) -> SearchOutcome:
        """The search, and the fallback search if there is one and the first failed."""
        first = await _episode(self.context, self.strategy)
        if first.status is RunStatus.SOLVED or self.fallback_env is None:
            return first
        ctx = self.context
        description = await self.fallback_env.describe()
        task = TaskRef(ctx.task.task_id, ctx.task.inline_task, (), ctx.task.seed)
        second = SearchContext(self.fallback_env, description, ctx.model, ctx.config, task,
                               ctx.events, self.evaluator)
        second.reflections = list(ctx.reflections)
        self.strategy = self._make_strategy()
        outcome = await _episode(second, self.strategy)
        second.nodes_expanded += ctx.nodes_expanded
        self.context = second
        outcome.iterations += first.iterations
        outcome.wall_seconds += first.wall_seconds
        outcome.reason = f"first search: {first.reason}; fallback search: {outcome.reason}"
        outcome.nodes_expanded = second.nodes_expanded
        return outcome


async def _episode(ctx: SearchContext, strategy: Strategy) -> SearchOutcome:
    """Starts the episode, runs the strategy, then chooses, scores and times the answer.

    The model budget running out ends the search gracefully (status failed).
    """
    started = time.monotonic()
    outcome = SearchOutcome(status=RunStatus.FAILED, answer=None)
    try:
        await ctx.start()
        result = await strategy.search(ctx)
        outcome.reason, outcome.answer = result.reason, result.answer
        if result.solved:
            outcome.status = RunStatus.SOLVED
    except BudgetExhausted as exc:
        outcome.reason = f"model budget spent: {exc}"
    outcome.iterations = ctx.iterations
    if ctx.root is not None:
        if outcome.answer is None:
            await ctx.break_ties()
            outcome.answer = strategy.choose_answer(ctx)
            outcome.answer_reason = ctx.answers.reason
        if outcome.answer is not None and ctx.is_success(outcome.answer):
            outcome.status = RunStatus.SOLVED
        if outcome.answer is not None and ctx.description.capabilities.score:
            outcome.score = await ctx.score(outcome.answer)
    outcome.nodes_expanded = ctx.nodes_expanded
    outcome.reflections = list(ctx.reflections)
    outcome.wall_seconds = time.monotonic() - started
    return outcome
