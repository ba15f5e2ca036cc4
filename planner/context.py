"""One search context: everything a search strategy does to the tree.

A `SearchContext` holds one episode of one task: the environment interface
(planner.environment), the model client, the effective settings, the event
sink, the tree under `root` and the reflection memory. Its operations are the
building blocks every strategy (planner.methods) is made of:

  start        the episode (with the pack's one-off setup generation first)
  sample       n model completions, seeded by (run seed, purpose, key) only
  expand       n actions at a node from one act call, identical ones merged,
               all children stepped in one Transition and evaluated concurrently
  propose /    one action at a node / one child stepped from a node
  extend
  rollout      one ReAct trajectory from the root
  evaluate     a child's value (LM value and second term, planner.evaluation)
  reflect      a reflection on a failed node, kept in memory or in the branch
  default_answer, score
                the node to report and its hidden-ground-truth score

Strategies never reach past the context to the environment or the model, so
every method runs through the same protocol, prompt pack, model budget and
accounting. `nodes_expanded` counts model generations at a state: one per act
call (or per step of a model-written transcript).
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from lats_pb import environment_pb2 as env_pb

from planner.environment import Environment, TaskRef
from planner.evaluation import combined_value, lm_score, self_consistency
from planner.events import EventSink
from planner.model_client import ModelClient, SamplingParams
from planner.prompting import PromptRenderer, action_key, clean_action
from planner.tree import Node, mark_exhausted

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
    parallel: int = 1                       # P: MCTS selections in flight at once


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


def derived_seed(seed: int, purpose: str, key: str) -> int:
    """A per-call seed that depends only on the run seed, the purpose and a key
    (a node id), so a search is reproducible whatever order calls finish in."""
    digest = hashlib.sha256(f"{seed}:{purpose}:{key}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


class SearchContext:
    """One episode's tree, memory and services; the strategies' operations."""

    def __init__(self, env: Environment, description: env_pb.DescribeResponse,
                 model: ModelClient, config: LatsConfig, task: TaskRef, events: EventSink):
        self.env = env
        self.description = description
        self.pack = description.prompt_pack
        self.model = model
        self.config = config
        self.task = task
        self.events = events
        self.reflections: list[str] = []
        self.honest = description.reward_mode == env_pb.REWARD_MODE_HONEST
        self.root: Node | None = None
        self.renderer: PromptRenderer | None = None
        self.nodes_expanded = 0
        reward_range = description.reward_range
        self._reward_low = reward_range.min
        self._reward_span = (reward_range.max - reward_range.min) or 1.0
        self.success_threshold = reward_range.success_threshold or reward_range.max

    # ------------------------------------------------------------- judgements
    @property
    def every_action_is_answer(self) -> bool:
        """The environment's fact that each action is a complete answer attempt
        (a whole program): a failed attempt is not terminal, and the next step
        is another attempt, not a continuation (DescribeResponse.facts; servers
        that predate the facts state it as the hint reflect_each_failure)."""
        return (self.description.facts.complete_answer_actions
                or self.description.prompt_pack.search_hints.reflect_each_failure)

    def normalised(self, reward: float) -> float:
        return min(1.0, max(0.0, (reward - self._reward_low) / self._reward_span))

    def is_success(self, node: Node) -> bool:
        """A terminal state whose reward reaches the threshold (never in honest mode)."""
        return not self.honest and node.terminal and node.reward >= self.success_threshold

    def passed(self, node: Node) -> bool:
        """The environment's binary verdict on a terminal state: its reward
        reaches the success threshold (in honest mode that reward carries no
        hidden ground truth, e.g. model-written tests, so it may be used)."""
        return node.terminal and not node.invalid_action and node.reward >= self.success_threshold

    def recent_reflections(self) -> list[str]:
        keep = self.config.max_reflections
        return self.reflections[-keep:] if keep > 0 else []

    def best(self, children: list[Node]) -> Node:
        """Highest value; a success beats everything; ties go to the earlier child."""
        return max(children, key=lambda c: (self.is_success(c), c.value))

    # ------------------------------------------------------------------ model
    async def sample(self, messages, purpose: str, key: str, n: int, temperature: float,
                     stop: Sequence[str], max_tokens: int) -> list[str]:
        """n completions; the seed depends on the run seed, the purpose and `key`."""
        params = SamplingParams(n=n, temperature=temperature, stop=tuple(stop),
                                max_tokens=max_tokens or 256,
                                seed=derived_seed(self.config.seed, purpose, key),
                                purpose=purpose, key=key)
        return await self.model.complete(messages, params)

    # ------------------------------------------------------------ the episode
    async def start(self) -> Node:
        """Starts the episode (after the pack's setup generation, if any); sets `root`."""
        task = self.task
        if self.pack.setup_template:
            # A one-off setup generation whose output the environment takes
            # as a start option (e.g. model-written internal tests).
            option = self.pack.setup_option_key or "setup"
            self.events.setup_started(option)
            began = time.monotonic()
            probe = await self.env.start(task)
            renderer = PromptRenderer(self.pack, probe.observation)
            setup = await self.sample(renderer.setup(), "setup", "setup", 1, 0.0,
                                      self.pack.setup_stop, self.pack.setup_max_tokens)
            self.events.setup_finished(option, setup[0], time.monotonic() - began)
            task = task.with_option(option, setup[0])
            self.task = task
        started = await self.env.start(task)
        self.renderer = PromptRenderer(self.pack, started.observation)
        self.renderer.validate()
        self.root = Node(id="0", observation=started.observation, state=started.state, visits=1)
        self.events.started(started.task_id or task.task_id, started.observation)
        return self.root

    async def step_children(self, parent: Node, children: list[Node]) -> None:
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

    async def evaluate(self, child: Node) -> None:
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
            texts = await self.sample(
                self.renderer.value(child, self.recent_reflections()), "value", child.id, samples,
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
        texts = await self.sample(
            self.renderer.act(node, self.recent_reflections()), "act", node.id, n,
            self.config.temperature, self.pack.act_stop, self.pack.act_max_tokens)
        actions = [clean_action(t, self.pack.action_prefix_pattern) for t in texts]
        keys = [action_key(a) for a in actions]
        shares = self_consistency(keys)          # over all n samples, empty ones included
        counts = Counter(keys)
        first_spelling: dict[str, str] = {}
        for key, action in zip(keys, actions):
            first_spelling.setdefault(key, action)
        children = [
            Node(id=f"{node.id}.{i}", parent=node, depth=node.depth + 1, action=first_spelling[key],
                 sample_count=counts[key], sc_score=shares[key])
            for i, key in enumerate(k for k in first_spelling if k)
        ]
        node.expanded = True
        self.nodes_expanded += 1
        await self.step_children(node, children)
        node.children = children
        for child in children:
            self.events.node_added(child)
        await asyncio.gather(*(self.evaluate(child) for child in children))
        for child in children:
            if child.terminal or child.depth >= self.config.max_depth:
                mark_exhausted(child)
                if child.terminal:
                    self.events.terminal(child)
        if not children:
            mark_exhausted(node)
        solved = any(self.is_success(child) for child in children)
        if self.config.reflection and self.config.reflect_each_failure and not solved:
            await asyncio.gather(*(self.reflect(child) for child in children
                                   if not child.invalid_action))
        return children

    async def propose(self, node: Node, reflections, key: str,
                      temperature: float | None = None) -> str:
        """One next action at `node` from the act prompt ("" if the model gave none)."""
        texts = await self.sample(self.renderer.act(node, reflections), "act", key, 1,
                                  self.config.temperature if temperature is None else temperature,
                                  self.pack.act_stop, self.pack.act_max_tokens)
        self.nodes_expanded += 1
        return clean_action(texts[0], self.pack.action_prefix_pattern) if texts else ""

    async def extend(self, node: Node, action: str) -> Node:
        """Steps `action` from `node` and announces the new child."""
        child = Node(id=f"{node.id}.{len(node.children)}", parent=node, depth=node.depth + 1,
                     action=action, sample_count=1, sc_score=1.0, visits=1)
        await self.step_children(node, [child])
        node.children.append(child)
        node.expanded = True
        if child.terminal and not self.honest:
            child.value = self.normalised(child.reward)
        self.events.node_added(child)
        if child.terminal or child.depth >= self.config.max_depth:
            mark_exhausted(child)
            if child.terminal:
                self.events.terminal(child)
        return child

    async def rollout(self, trial: int, reflections=(), repeat_limit: int = 0) -> tuple[Node, str]:
        """One ReAct trajectory from the root: act, step, repeat.

        Ends at a terminal state, at the depth limit d, when the model gives no
        action, or (repeat_limit > 0) when the same action was taken
        `repeat_limit` times in a row. Returns the last node and why it ended.
        """
        node = self.root
        repeats = 0
        while not node.terminal:
            if node.depth >= self.config.max_depth:
                return node, f"depth limit d={self.config.max_depth}"
            action = await self.propose(node, reflections, key=f"{node.id}@{trial}")
            if not action:
                return node, "the model gave no action"
            same = node is not self.root and action_key(node.action) == action_key(action)
            repeats = repeats + 1 if same else 1
            node = await self.extend(node, action)
            if repeat_limit and repeats >= repeat_limit:
                return node, f"the same action {repeats} times in a row"
        return node, "terminal state"

    async def reflect(self, leaf: Node) -> None:
        """A reflection on `leaf`: in its branch (reflect_each_failure) or in memory."""
        texts = await self.sample(self.renderer.reflect(leaf), "reflect", leaf.id, 1, 0.0,
                                  self.pack.reflect_stop, self.pack.reflect_max_tokens or 256)
        text = texts[0].strip() if texts else ""
        if not text:
            return
        if self.config.reflect_each_failure:
            leaf.reflection = text          # shown in this branch only
        else:
            self.reflections.append(text)   # global memory for later prompts
        self.events.reflection(leaf, text)

    # ----------------------------------------------------------------- answer
    def default_answer(self) -> Node | None:
        """A success, else the best terminal state, else the best node."""
        nodes = [n for n in self.root.walk() if n is not self.root]
        if not nodes:
            return None
        terminals = [n for n in nodes if n.terminal and not n.invalid_action]
        if terminals:
            return max(terminals, key=lambda n: (self.is_success(n), n.reward, n.value))
        return max(nodes, key=lambda n: (n.value, n.depth))

    async def score(self, node: Node) -> env_pb.ScoreResponse:
        """Hidden-ground-truth score of the answer; only after the search ends."""
        return await self.env.score(node.state)
