"""Language Agent Tree Search (Zhou et al., 2024, Algorithm 1), domain-free.

One iteration of the search:
  1. Selection: from the root, follow the child with the highest UCT
     (planner.tree) among children not yet exhausted, down to a node that has
     not been expanded.
  2. Expansion: sample n actions for it from the act prompt (one model call
     with n samples); identical actions become one child whose
     self-consistency is their share of the n. Every child is stepped in its
     own forked environment session, all children concurrently.
  3. Evaluation: each new non-terminal child gets
     V = lambda * LM + (1 - lambda) * SC (planner.evaluation), all children
     concurrently. A terminal child's value is its normalised reward; an
     action the environment rejected as invalid gets V = 0 without a model call.
     With the LM value switched off (an ablation) V = SC and no call is made.
  4. Simulation: from the best new child, keep expanding and moving to the
     highest-value child until a terminal state or the depth limit.
  5. Backpropagation: the rollout's reward r (the normalised terminal reward,
     0 when the depth limit cut it off) updates N and V from the leaf to the root.
  6. Reflection: a failed rollout is reflected upon by the model; the
     reflection is kept in memory and shown in later act and value prompts.
The search stops at the first terminal state whose reward reaches the
environment's success threshold, after k iterations, when the model budget is
spent, or when every branch of the tree is exhausted.

With reward_mode "honest" the environment's terminal rewards carry no ground
truth, so terminal states are valued by the model and never end the search
early; the answer is then the best-valued terminal state.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import Counter
from dataclasses import dataclass, field

from lats_pb import environment_pb2 as env_pb

from planner.environment import Environment, TaskRef
from planner.evaluation import combined_value, lm_score, self_consistency
from planner.events import EventSink
from planner.model_client import BudgetExhausted, ModelClient, SamplingParams
from planner.prompting import PromptRenderer, action_key, clean_action
from planner.tree import Node, backpropagate, mark_exhausted, select_leaf, uct_rule

DEFAULT_N_SAMPLES = 5
DEFAULT_ITERATIONS = 30
DEFAULT_MAX_DEPTH = 7


@dataclass(frozen=True)
class LatsConfig:
    """The search's hyperparameters (names as in the paper)."""

    n_samples: int = DEFAULT_N_SAMPLES      # n
    iterations: int = DEFAULT_ITERATIONS    # k
    max_depth: int = DEFAULT_MAX_DEPTH      # d
    exploration_weight: float = 1.0         # w
    value_weight: float = 0.5               # lambda
    reflection: bool = True
    simulate: bool = True
    temperature: float = 1.0
    seed: int = 0
    max_reflections: int = 3
    value_samples: int = 1
    root_samples: int = 0                   # samples at the root (0 = n)
    reflect_each_failure: bool = False      # per-child reflections instead of per-rollout
    reward_in_value: bool = False           # V = lambda*LM + (1-lambda)*reward
    lm_value: bool = True                   # ablation off: V = SC (or reward), no value calls


@dataclass
class SearchOutcome:
    status: str                   # "solved" | "failed"
    answer: Node | None
    reason: str = ""
    iterations: int = 0
    nodes_expanded: int = 0
    wall_seconds: float = 0.0
    score: env_pb.ScoreResponse | None = None
    reflections: list[str] = field(default_factory=list)


def derived_seed(seed: int, purpose: str, node_id: str) -> int:
    """A per-call seed that depends only on the run seed and the node, so a
    search is reproducible (and replayable) whatever order calls finish in."""
    digest = hashlib.sha256(f"{seed}:{purpose}:{node_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


class LatsSearch:
    """One LATS search of one task. Create, then `await run()`."""

    def __init__(self, env: Environment, description: env_pb.DescribeResponse,
                 model: ModelClient, config: LatsConfig, task: TaskRef, events: EventSink):
        self.env = env
        self.description = description
        self.pack = description.prompt_pack
        self.model = model
        self.config = config
        self.task = task
        self.events = events
        self.select_rule = uct_rule(config.exploration_weight)
        self.reflections: list[str] = []
        self.honest = description.reward_mode == "honest"
        self.root: Node | None = None
        self.renderer: PromptRenderer | None = None
        self.nodes_expanded = 0
        reward_range = description.reward_range
        self._reward_low = reward_range.min
        self._reward_span = (reward_range.max - reward_range.min) or 1.0
        self._success_threshold = reward_range.success_threshold or reward_range.max

    # ----------------------------------------------------------------- helpers
    def normalised(self, reward: float) -> float:
        return min(1.0, max(0.0, (reward - self._reward_low) / self._reward_span))

    def is_success(self, node: Node) -> bool:
        return not self.honest and node.terminal and node.reward >= self._success_threshold

    def _recent_reflections(self) -> list[str]:
        keep = self.config.max_reflections
        return self.reflections[-keep:] if keep > 0 else []

    async def _sample(self, messages, purpose: str, node: Node, n: int,
                      temperature: float, stop, max_tokens: int) -> list[str]:
        params = SamplingParams(
            n=n, temperature=temperature, stop=tuple(stop), max_tokens=max_tokens or 256,
            seed=derived_seed(self.config.seed, purpose, node.id), purpose=purpose)
        return await self.model.complete(messages, params)

    # ------------------------------------------------------------------ phases
    async def _start(self) -> Node:
        task = self.task
        if self.pack.setup_template:
            # A one-off setup generation whose output the environment takes
            # as a start option (e.g. model-written internal tests).
            option = self.pack.setup_option_key or "setup"
            self.events.setup_started(option)
            began = time.monotonic()
            probe = await self.env.start(task)
            renderer = PromptRenderer(self.pack, probe.observation)
            setup = await self._sample(renderer.setup(), "setup", Node(id="setup"), 1, 0.0,
                                       self.pack.setup_stop, self.pack.setup_max_tokens)
            self.events.setup_finished(option, setup[0], time.monotonic() - began)
            task = task.with_option(option, setup[0])
            self.task = task
        started = await self.env.start(task)
        self.renderer = PromptRenderer(self.pack, started.observation)
        self.renderer.validate()
        root = Node(id="0", observation=started.observation, state=started.state, visits=1)
        self.events.started(started.task_id or task.task_id, started.observation)
        return root

    async def _step_children(self, parent: Node, children: list[Node]) -> None:
        """Applies each child's action to the parent's state, all in one transition."""
        if not children:
            return
        results = await self.env.transition(parent.state, [child.action for child in children])
        for child, stepped in zip(children, results):
            child.observation = stepped.observation
            child.reward = stepped.reward
            child.terminal = stepped.terminated or stepped.truncated
            child.invalid_action = stepped.invalid_action
            child.state = stepped.state

    async def _evaluate(self, child: Node) -> None:
        """Sets the child's LM score and value; counts as its first visit."""
        if child.invalid_action:
            child.lm_score, child.value = 0.0, 0.0
        elif child.terminal and not self.honest:
            child.value = self.normalised(child.reward)
        elif not self.config.lm_value:
            # "No LM value heuristic" ablation: only the second term, for free.
            child.value = (self.normalised(child.reward) if self.config.reward_in_value
                           else child.sc_score)
        else:
            samples = max(1, self.config.value_samples)
            texts = await self._sample(
                self.renderer.value(child, self._recent_reflections()), "value", child, samples,
                0.0 if samples == 1 else self.config.temperature,
                self.pack.value_stop, self.pack.value_max_tokens)
            child.lm_score = lm_score(texts, self.pack.value_pattern or r"score is\s*(\d+(?:\.\d+)?)",
                                      self.pack.value_min, self.pack.value_max or 10.0)
            second = self.normalised(child.reward) if self.config.reward_in_value else child.sc_score
            child.value = combined_value(child.lm_score, second, self.config.value_weight)
        child.visits = 1
        self.events.node_evaluated(child)

    async def expand(self, node: Node) -> list[Node]:
        """Samples n actions at `node`, steps and evaluates the distinct ones."""
        n = self.config.n_samples
        if node.parent is None and self.config.root_samples:
            n = self.config.root_samples
        texts = await self._sample(
            self.renderer.act(node, self._recent_reflections()), "act", node, n,
            self.config.temperature, self.pack.act_stop, self.pack.act_max_tokens)
        actions = [clean_action(t, self.pack.action_prefix_pattern) for t in texts]
        keys = [action_key(a) for a in actions]
        shares = self_consistency(keys)          # over all n samples, empty ones included
        counts = Counter(keys)
        first_spelling = {}
        for key, action in zip(keys, actions):
            first_spelling.setdefault(key, action)
        children = [
            Node(id=f"{node.id}.{i}", parent=node, depth=node.depth + 1, action=first_spelling[key],
                 sample_count=counts[key], sc_score=shares[key])
            for i, key in enumerate(k for k in first_spelling if k)
        ]
        node.expanded = True
        self.nodes_expanded += 1
        await self._step_children(node, children)
        node.children = children
        for child in children:
            self.events.node_added(child)
        await asyncio.gather(*(self._evaluate(child) for child in children))
        for child in children:
            if child.terminal or child.depth >= self.config.max_depth:
                mark_exhausted(child)
                if child.terminal:
                    self.events.terminal(child)
        if not children:
            mark_exhausted(node)
        solved = any(self.is_success(child) for child in children)
        if self.config.reflection and self.config.reflect_each_failure and not solved:
            await asyncio.gather(*(self._reflect(child) for child in children
                                   if not child.invalid_action))
        return children

    def _best(self, children: list[Node]) -> Node:
        """Highest value; a success beats everything; ties go to the earlier child."""
        return max(children, key=lambda c: (self.is_success(c), c.value))

    async def _simulate(self, start: Node) -> Node:
        """Greedy rollout by value from `start` to a terminal state or the depth limit."""
        node = start
        while self.config.simulate and not node.terminal and node.depth < self.config.max_depth:
            children = await self.expand(node)
            if not children:
                break
            node = self._best(children)
            if self.is_success(node):
                break
        return node

    def _rollout_reward(self, leaf: Node) -> float:
        if leaf.terminal:
            return leaf.value if self.honest else self.normalised(leaf.reward)
        return leaf.value if not self.config.simulate else 0.0

    async def _reflect(self, leaf: Node) -> None:
        texts = await self._sample(self.renderer.reflect(leaf), "reflect", leaf, 1, 0.0,
                                   self.pack.reflect_stop, self.pack.reflect_max_tokens or 256)
        text = texts[0].strip() if texts else ""
        if not text:
            return
        if self.config.reflect_each_failure:
            leaf.reflection = text          # shown in this branch only
        else:
            self.reflections.append(text)   # global memory for later prompts
        self.events.reflection(leaf, text)

    def _answer(self) -> Node | None:
        """The node to report: a success, else the best terminal, else the best node."""
        nodes = [n for n in self.root.walk() if n is not self.root]
        if not nodes:
            return None
        terminals = [n for n in nodes if n.terminal and not n.invalid_action]
        if terminals:
            return max(terminals, key=lambda n: (self.is_success(n), n.reward, n.value))
        return max(nodes, key=lambda n: (n.value, n.depth))

    async def _score(self, node: Node) -> env_pb.ScoreResponse:
        """Hidden-ground-truth score of the answer; only after the search ends."""
        return await self.env.score(node.state)

    # -------------------------------------------------------------------- run
    def choose_answer(self) -> Node | None:
        """The node to report; by default a success, else the best terminal state."""
        return self._answer()

    async def run(self) -> SearchOutcome:
        """Starts the episode, runs `search`, then chooses, scores and times the answer.

        The model budget running out ends the search gracefully (status failed).
        """
        started = time.monotonic()
        outcome = SearchOutcome(status="failed", answer=None)
        try:
            self.root = await self._start()
            await self.search(outcome)
        except BudgetExhausted as exc:
            outcome.reason = f"model budget spent: {exc}"
        if self.root is not None:
            if outcome.answer is None:
                outcome.answer = self.choose_answer()
            if outcome.answer is not None and self.is_success(outcome.answer):
                outcome.status = "solved"
            if outcome.answer is not None and self.description.capabilities.score:
                outcome.score = await self._score(outcome.answer)
        outcome.nodes_expanded = self.nodes_expanded
        outcome.reflections = list(self.reflections)
        outcome.wall_seconds = time.monotonic() - started
        return outcome

    async def search(self, outcome: SearchOutcome) -> None:
        """The MCTS loop (the module docstring); sets iterations, status and reason."""
        for iteration in range(1, self.config.iterations + 1):
            leaf = select_leaf(self.root, self.select_rule)
            if leaf is None:
                outcome.reason = "every branch of the tree is exhausted"
                break
            outcome.iterations = iteration
            self.events.iteration(iteration)
            self.events.selected(leaf, iteration)
            children = await self.expand(leaf)
            if not children:
                continue
            end = await self._simulate(self._best(children))
            reward = self._rollout_reward(end)
            path = backpropagate(end, reward)
            self.events.backpropagated(end, reward, path)
            if self.is_success(end):
                outcome.status = "solved"
                outcome.reason = "a terminal state reached the success threshold"
                break
            if (self.config.reflection and not self.config.reflect_each_failure
                    and (end.terminal or end.depth >= self.config.max_depth)):
                await self._reflect(end)
        else:
            outcome.reason = f"iteration budget k={self.config.iterations} spent"
