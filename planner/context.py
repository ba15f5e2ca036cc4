"""One search context: everything a search strategy does to the tree.

A `SearchContext` holds one episode of one task: the environment interface
(planner.environment), the model client, the effective settings, the evaluator,
the event sink, the tree under `root` and the reflection memory. Its operations are the
building blocks every strategy (planner.methods) is made of:

  start        the episode (with the pack's one-off setup generation first)
  sample       n model completions, seeded by (run seed, purpose, key) only
  expand       n actions at a node from one act call (at the root, with
               greedy_first, the first is CoT's own greedy attempt), identical
               ones merged, all children stepped in one Step call and
               evaluated concurrently; with dedup a repeat of any node in the
               tree (same text where every action is an answer, or same
               answer key) is merged into that node, never scored again
  greedy_attempt
               the attempt CoT makes: the same request, at temperature 0
  propose /    one action at a node / one child stepped from a node
  extend
  rollout      one ReAct trajectory from the root
  evaluate     a child's value (by the evaluator the search was given,
               planner.evaluation)
  reflect      a reflection on a failed node, kept in memory or in the branch
  default_answer, score
                the node to report (answer_rule "value": the paper's; or
                "agreement": the largest class of passing answers) and its
                hidden-ground-truth score

Strategies never reach past the context to the environment or the model, so
every method runs through the same protocol, prompt pack, model budget and
accounting. `nodes_expanded` counts model generations at a state: one per act
call (or per step of a model-written transcript); `iterations` is what k counts
for the strategy, kept up to date by it (a search that fails midway reports it).
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass

from lats_pb import environment_pb2 as env_pb

from planner.environment import Environment, Stepped, TaskRef, complete_answer_actions
from planner.answers import AnswerBook
from planner.evaluation import Evaluator, answer_agreement, self_consistency
from planner.events import EventSink
from planner.model_client import ModelClient, SamplingParams
from planner.prompting import PromptRenderer, action_key, clean_action
from planner.search_config import LatsConfig
from planner.tie_break import break_tie
from planner.transcript import split_transcript
from planner.tree import Node, mark_exhausted, reopen

MIN_TRANSCRIPT_TOKENS = 256
MAX_TRANSCRIPT_TOKENS = 2048
MAX_DRAWS = 3          # expansions of one node when every sample repeated a known node


@dataclass(frozen=True)
class Draw:
    """One expansion's outcome: the new `children` of `parent` and, for each sample
    drawn, the node it counted for (a new child, or the node it repeated)."""

    parent: Node
    children: list[Node]
    samples: list[Node]

    def observations(self, ctx: SearchContext) -> list[tuple[float, Node | None]]:
        """(graded reward, the new child it made or None) per sample: a new child's
        graded reward once; a repeat is worth 1 if what it repeats passes the
        environment's checks (a vote for a passing answer), else 0."""
        seen: set[int] = set()
        new = {id(child) for child in self.children}
        result: list[tuple[float, Node | None]] = []
        for node in self.samples:
            if id(node) in new and id(node) not in seen:
                seen.add(id(node))
                result.append((ctx.graded(node), node))
            else:
                result.append((1.0 if ctx.passed(node) else 0.0, None))
        return result


def derived_seed(seed: int, purpose: str, key: str) -> int:
    """A per-call seed that depends only on the run seed, the purpose and a key
    (a node id), so a search is reproducible whatever order calls finish in."""
    digest = hashlib.sha256(f"{seed}:{purpose}:{key}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


class SearchContext:
    """One episode's tree, memory and services; the strategies' operations."""

    def __init__(self, env: Environment, description: env_pb.DescribeResponse,
                 model: ModelClient, config: LatsConfig, task: TaskRef, events: EventSink,
                 evaluator: Evaluator):
        self.env = env
        self.description = description
        self.pack = description.prompt_pack
        self.model = model
        self.config = config
        self.evaluator = evaluator
        self.task = task
        self.events = events
        self.reflections: list[str] = []
        self.honest = description.reward_mode == env_pb.REWARD_MODE_HONEST
        self.root: Node | None = None
        self.renderer: PromptRenderer | None = None
        self.nodes_expanded = 0
        self.value_parse_failures = 0
        self.max_action_bytes = description.limits.max_action_bytes
        self.max_option_bytes = description.limits.max_option_bytes
        self.answers = AnswerBook(self)
        self.iterations = 0      # what k counts for the strategy, so far (it keeps this up)
        reward_range = description.reward_range
        self._reward_low = reward_range.min
        self._reward_span = (reward_range.max - reward_range.min) or 1.0
        self.success_threshold = reward_range.success_threshold or reward_range.max

    # ------------------------------------------------------------- judgements
    @property
    def complete_answer_actions(self) -> bool:
        """Each action is a complete answer attempt (planner.environment.complete_answer_actions)."""
        return complete_answer_actions(self.description)

    def normalised(self, reward: float) -> float:
        return min(1.0, max(0.0, (reward - self._reward_low) / self._reward_span))

    def is_success(self, node: Node) -> bool:
        """A terminal state whose reward reaches the threshold (never in honest mode)."""
        return not self.honest and node.terminal and node.reward >= self.success_threshold

    def passed(self, node: Node) -> bool:
        """The environment's binary verdict on a terminal state: its reward
        reaches the success threshold (in honest mode that reward carries no
        hidden ground truth, e.g. model-written tests, so it may be used). Where
        honest rewards are no check at all (no partial credit: every step earns
        0), every terminal state that gives an answer passes the checks there
        are, none: which answer is right is for agreement among them to say."""
        return self._passes(node.terminal, node.invalid_action, node.reward, node.answer_key)

    @property
    def unchecked_answers(self) -> bool:
        """Honest mode where rewards say nothing (no partial credit)."""
        return self.honest and not self.description.facts.partial_credit_rewards

    def _passes(self, terminal: bool, invalid_action: bool, reward: float,
                answer_key: str) -> bool:
        """The environment's binary verdict on a step result (see `passed`)."""
        if not terminal or invalid_action:
            return False
        if self.unchecked_answers:
            return bool(answer_key)
        return reward >= self.success_threshold

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
            task = task.with_option(option, setup[0], self.max_option_bytes)
            self.task = task
        started = await self.env.start(task)
        self.renderer = PromptRenderer(self.pack, started.observation)
        self.renderer.validate()
        self.root = Node(id="0", observation=started.observation, state=started.state, visits=1,
                         state_key=started.state_key)
        if started.info.fields:
            self.events.reset_info(started.info)
        self.events.started(started.task_id or task.task_id, started.observation)
        return self.root

    async def step_children(self, parent: Node, children: list[Node],
                            known: dict[str, Stepped] | None = None) -> None:
        """Applies each child's action to the parent's state, all in one Step call
        (results `known` by action text are reused, not stepped again)."""
        known = known or {}
        todo = [child for child in children if child.action not in known]
        results = await self.env.transition(parent.state, [c.action for c in todo]) if todo else []
        fresh = {id(child): stepped for child, stepped in zip(todo, results)}
        for child in children:
            stepped = fresh[id(child)] if id(child) in fresh else known[child.action]
            child.observation = stepped.observation
            child.reward = stepped.reward
            child.terminal = stepped.terminated or stepped.truncated
            child.invalid_action = stepped.invalid_action
            child.state = stepped.state
            child.answer_key = "" if stepped.invalid_action else stepped.answer_key
            child.state_key = "" if stepped.invalid_action else stepped.state_key
            child.answer_facets = {} if stepped.invalid_action else dict(stepped.answer_facets)
            child.failure_kind = "" if stepped.invalid_action else stepped.failure_kind

    async def evaluate(self, child: Node, lm: bool = True) -> None:
        """Sets the child's value (and LM score) and counts it as its first visit: an
        invalid action and a loop (prune_loops: `returns_to` set) are worth 0 and a
        terminal state (outside honest mode) its normalised reward; anything else
        is the evaluator's (planner.evaluation).

        With `lm` false (a sibling already succeeded, so the value cannot
        matter) the evaluator makes no model call."""
        if child.invalid_action:
            child.lm_score, child.value = 0.0, 0.0
        elif child.returns_to is not None:          # a loop (prune_loops)
            child.value = 0.0
        elif child.terminal and not self.honest:
            child.value = self.normalised(child.reward)
        else:
            estimate = await self.evaluator.evaluate(self, child, calls=lm)
            child.value = estimate.value
            if estimate.lm_score is not None:
                child.lm_score = estimate.lm_score
            self.value_parse_failures += estimate.parse_misses
        child.visits = 1
        self.events.node_evaluated(child)

    async def greedy_attempt(self) -> str:
        """The model's greedy first action: where every action is an answer, CoT's very
        request (prompt, stop sequences, token limit, seed) at temperature 0, read as CoT
        reads it; elsewhere the act prompt at temperature 0. "" if it gave none."""
        if not self.complete_answer_actions:
            return await self.propose(self.root, (), key=f"{self.root.id}@greedy",
                                      temperature=0.0, count=False)
        stop, max_tokens = self.transcript_params()
        texts = await self.sample(self.renderer.act(self.root, ()), "cot", f"{self.root.id}@0",
                                  1, 0.0, stop, max_tokens)
        pack = self.pack
        actions = split_transcript(texts[0] if texts else "", pack.step_template, 1,
                                   pack.act_stop, pack.action_prefix_pattern, 1)
        return actions[0] if actions else ""

    def transcript_params(self) -> tuple[tuple[str, ...], int]:
        """(stop sequences, token limit) of a CoT transcript. Where every action is a
        complete answer only its first action is read, so it stops where an act
        completion stops; elsewhere it has room for d actions and guessed observations."""
        if self.complete_answer_actions:
            return tuple(self.pack.act_stop), self.pack.act_max_tokens or MIN_TRANSCRIPT_TOKENS
        per_step = self.pack.act_max_tokens or 128
        wanted = 2 * per_step * self.config.max_depth
        return (), max(MIN_TRANSCRIPT_TOKENS, min(MAX_TRANSCRIPT_TOKENS, wanted))

    async def expand(self, node: Node) -> list[Node]:
        """The new children of one draw at `node` (`expand_draw`)."""
        return (await self.expand_draw(node)).children

    async def expand_draw(self, node: Node) -> Draw:
        """Samples n actions at `node`, steps and evaluates the new distinct ones.

        At the root's first expansion with greedy_first, the first action is
        `greedy_attempt()` and n - 1 are sampled. With greedy_gate the greedy
        attempt is stepped before any sample is drawn, and when its result
        ends the search (it passes the environment's checks, and one passing
        answer is enough: the agreement rule with stop_class_size 1, or the
        value rule's success) it is the expansion's only child; otherwise the
        expansion goes on exactly as without the gate (its result is reused,
        not stepped again). Identical samples become one child (SC = their
        share). An empty sample, or one longer than the environment's
        limits.max_action_bytes, is an invalid child that is not stepped. With
        dedup, a sample repeating a node anywhere in the tree (the same text
        where every action is an answer; after stepping, the same answer key)
        is merged into that node as a repeat and not evaluated. Returns the
        draw: the children added (none when every sample was a repeat; the node
        may then be expanded again with fresh samples, up to MAX_DRAWS) and the
        node each sample counted for.
        """
        draw = node.draws
        node.draws += 1
        greedy = self.config.greedy_first and node is self.root and self.answers.greedy is None
        self.nodes_expanded += 1
        if not greedy:
            return await self._add_children(node, await self._sampled(node, draw, 0), draw)
        greedy_action = await self.greedy_attempt()
        known: dict[str, Stepped] = {}
        if self.config.greedy_gate and not self._unusable(greedy_action):
            known[greedy_action], = await self.env.transition(node.state, [greedy_action])
            if self._ends_search_alone(known[greedy_action]):
                return await self._add_children(node, [greedy_action], draw, True, known)
        actions = [greedy_action] + await self._sampled(node, draw, 1)
        return await self._add_children(node, actions, draw, True, known)

    def may_draw(self, node: Node) -> bool:
        """A draw of samples at `node` is possible: it is a valid state short of the end
        and the depth limit, not a failure of a kind the environment says refining
        rarely fixes (config.unrefined_failures), and its last draw added something
        new (a node with children whose latest draw repeated known nodes only has
        shown what the model proposes there; a childless one is drawn at again up
        to MAX_DRAWS times)."""
        if node.terminal or node.invalid_action or node.depth >= self.config.max_depth:
            return False
        if not node.expanded:
            return not node.exhausted and not (
                node.failure_kind and node.failure_kind in self.config.unrefined_failures)
        return node.empty_draws == 0 or (self.config.dedup and not node.children
                                         and node.empty_draws < MAX_DRAWS)

    def graded(self, node: Node) -> float:
        """A node's graded reward in [0, 1] (what adaptive branching observes): 0 for
        an invalid action; the normalised reward of a terminal state outside honest
        mode, or of any state where rewards are partial credit (the share of visible
        tests passed: facts.partial_credit_rewards, or reward_in_value); else the
        node's value."""
        if node.invalid_action:
            return 0.0
        if ((node.terminal and not self.honest) or self.config.reward_in_value
                or self.description.facts.partial_credit_rewards):
            return self.normalised(node.reward)
        return min(1.0, max(0.0, node.value))

    def _ends_search_alone(self, result: Stepped) -> bool:
        """One result ends the search by itself: it passes the environment's checks and
        one passing answer is enough (agreement with stop_class_size 1; the value rule's
        success, never in honest mode)."""
        passes = self._passes(result.terminated or result.truncated, result.invalid_action,
                              result.reward, result.answer_key)
        if self.config.answer_rule == "agreement":
            return passes and self.config.stop_class_size <= 1
        return passes and not self.honest

    async def _add_children(self, node: Node, actions: list[str], draw: int,
                            greedy: bool = False, known: dict[str, Stepped] | None = None
                            ) -> Draw:
        """Steps `actions` at `node` as one batch (the first being the greedy attempt
        when `greedy`; results `known` by action are reused), then evaluates and,
        where due, reflects on the new children."""
        children, sample_nodes = self._children_of(node, actions)
        if greedy and sample_nodes and sample_nodes[0] in children:
            self.answers.greedy = sample_nodes[0]
        unsent = [c for c in children if c.invalid_action]    # never sent: not states
        await self.step_children(node, [c for c in children if not c.invalid_action], known)
        children, sample_nodes = self._merge_answer_repeats(children, sample_nodes)
        children, sample_nodes = self._merge_state_repeats(node, children, sample_nodes)
        self._mark_loops(node, children)
        self._attach(node, children, sample_nodes, draw)
        solved = any(self.is_success(child) for child in children)
        await asyncio.gather(*(self.evaluate(child, lm=not solved) for child in children))
        self._close_finished(node, children, unsent)
        if (self.config.reflection and self.config.complete_answer_actions and not solved
                and not self.config.lazy_reflection):
            await asyncio.gather(*(self.reflect(child) for child in children
                                   if not child.invalid_action))
        return Draw(node, children, sample_nodes)

    async def _sampled(self, node: Node, draw: int, taken: int) -> list[str]:
        """The sampled actions of `node`'s `draw`-th expansion: n of them (root_samples
        at the root) less the `taken` ones it already has (the greedy attempt)."""
        n = self.config.n_samples
        if node.parent is None and self.config.root_samples:
            n = self.config.root_samples
        n -= taken
        if n <= 0:
            return []
        key = node.id if draw == 0 else f"{node.id}#{draw}"
        texts = await self.sample(
            self.renderer.act(node, self.recent_reflections()), "act", key, n,
            self.config.temperature, self.pack.act_stop, self.pack.act_max_tokens)
        return [clean_action(t, self.pack.action_prefix_pattern) for t in texts]

    def _mark_loops(self, node: Node, children: list[Node]) -> None:
        """With prune_loops, a new child of `node` that left a state and came back to
        it (its state key is that of a node on its path, the root's from Reset, but
        not `node`'s own) returns to that node's state: `returns_to`. Anything
        reachable from it is reachable from there, so it is valued 0 without a
        model call and never explored. A step that stays (the same key as `node`:
        a thought, which changes the trajectory but not the environment) is none."""
        if not self.config.prune_loops:
            return
        on_path = {n.state_key: n for n in node.path() if n.state_key}
        for child in children:
            if (child.state_key and child.state_key != node.state_key
                    and not (child.invalid_action or child.terminal)):
                child.returns_to = on_path.get(child.state_key)

    def _attach(self, node: Node, children: list[Node], sample_nodes: list[Node | None],
                draw: int) -> None:
        """Adds the stepped `children` under `node` with their answer agreement among
        the expansion's samples, and announces them."""
        agreement = answer_agreement([n.answer_key if n is not None else ""
                                      for n in sample_nodes])
        for child in children:
            child.agreement = agreement.get(child.answer_key, 0.0)
        node.children.extend(children)
        node.expanded = True
        if children and node.exhausted and draw:
            reopen(node)                        # a widened node has new children to explore
        for child in children:
            self.answers.register(child)
            self.events.node_added(child)

    def _close_finished(self, node: Node, children: list[Node], unsent: list[Node]) -> None:
        """Marks what cannot be explored further: terminal children, children at the
        depth limit, invalid ones and loops; `node` itself when its draw added nothing
        (after MAX_DRAWS such draws with dedup, else at once)."""
        for child in children:
            if (child.terminal or child.depth >= self.config.max_depth or child in unsent
                    or child.returns_to is not None):
                mark_exhausted(child)
                if child.terminal:
                    self.events.terminal(child)
        node.empty_draws = 0 if children else node.empty_draws + 1
        if not children:
            if node.empty_draws >= MAX_DRAWS or not self.config.dedup:
                mark_exhausted(node)
            elif not node.children:
                node.expanded = False          # every sample repeated a known node: draw again

    def _children_of(self, node: Node, actions: list[str]) -> tuple[list[Node], list[Node | None]]:
        """New children for the sampled `actions` (identical ones merged, invalid ones
        marked), and for each sample the node it counts for (None: merged away)."""
        keys = [action_key(a) for a in actions]
        shares = self_consistency(keys)          # over all n samples, empty ones included
        children: list[Node] = []
        by_key: dict[str, Node] = {}
        sample_nodes: list[Node | None] = []
        for action, key in zip(actions, keys):
            if key in by_key:
                by_key[key].sample_count += 1
                sample_nodes.append(by_key[key])
                continue
            known = self.answers.repeat_of_text(action, node) if self.config.dedup and key else None
            if known is not None:
                self.answers.merge(known, 1)
                self.events.node_evaluated(known)
                sample_nodes.append(known)
                continue
            child = Node(id=f"{node.id}.{len(node.children) + len(children)}", parent=node,
                         depth=node.depth + 1, action=action, sample_count=1,
                         sc_score=shares[key])
            why = self._unusable(action)
            if why:
                child.invalid_action, child.observation, child.state = True, why, node.state
            by_key[key] = child
            children.append(child)
            sample_nodes.append(child)
        return children, sample_nodes

    def _unusable(self, action: str) -> str:
        """Why the environment cannot take `action` (never sent), or "" if it can."""
        if not action.strip():
            return "The model's reply held no action; nothing was taken."
        size = len(action.encode("utf-8"))
        if self.max_action_bytes and size > self.max_action_bytes:
            return (f"The action is {size} bytes, longer than the environment's limit of "
                    f"{self.max_action_bytes} bytes (limits.max_action_bytes); it was not taken.")
        return ""

    def _merge_answer_repeats(self, children: list[Node], sample_nodes: list[Node | None]
                              ) -> tuple[list[Node], list[Node | None]]:
        """With dedup, stepped children whose answer key a kept node (or an earlier
        sibling) already has become repeats of it."""
        if not self.config.dedup:
            return children, sample_nodes
        kept: list[Node] = []
        into: dict[int, Node] = {}
        first_of_key: dict[str, Node] = {}
        for child in children:
            known = (self.answers.repeat_of_key(child)
                     or first_of_key.get(child.answer_key) if child.answer_key else None)
            if known is not None and not child.invalid_action:
                self.answers.merge(known, child.sample_count)
                into[id(child)] = known
                if known.parent is not None and known not in children:
                    self.events.node_evaluated(known)
                continue
            if child.answer_key and not child.invalid_action:
                first_of_key.setdefault(child.answer_key, child)
            kept.append(child)
        if into:
            sample_nodes = [into.get(id(n), n) if n is not None else None for n in sample_nodes]
            for index, child in enumerate(kept):
                child.id = f"{child.parent.id}.{len(child.parent.children) + index}"
        return kept, sample_nodes

    def _merge_state_repeats(self, node: Node, children: list[Node],
                             sample_nodes: list[Node]) -> tuple[list[Node], list[Node]]:
        """With dedup, new children of `node` whose state key a sibling already has
        (an earlier child of `node`, or an earlier one of this draw) lead to that
        sibling's state: each is folded into it, its samples counted for it."""
        if not self.config.dedup:
            return children, sample_nodes
        known = {c.state_key: c for c in node.children if c.state_key and not c.invalid_action}
        kept: list[Node] = []
        into: dict[int, Node] = {}
        for child in children:
            sibling = known.get(child.state_key) if child.state_key else None
            if sibling is None or child.invalid_action:
                if child.state_key and not child.invalid_action:
                    known[child.state_key] = child
                kept.append(child)
                continue
            into[id(child)] = sibling
            if sibling in kept:                       # new in this draw: not yet valued
                sibling.sample_count += child.sample_count
                sibling.sc_score += child.sc_score
            else:
                self.answers.merge(sibling, child.sample_count)
                self.events.node_evaluated(sibling)
        if not into:
            return children, sample_nodes
        sample_nodes = [into.get(id(n), n) for n in sample_nodes]
        for index, child in enumerate(kept):
            child.id = f"{node.id}.{len(node.children) + index}"
        return kept, sample_nodes

    async def propose(self, node: Node, reflections, key: str,
                      temperature: float | None = None, count: bool = True) -> str:
        """One next action at `node` from the act prompt ("" if the model gave none);
        `count` it as a generation at a state (nodes_expanded)."""
        texts = await self.sample(self.renderer.act(node, reflections), "act", key, 1,
                                  self.config.temperature if temperature is None else temperature,
                                  self.pack.act_stop, self.pack.act_max_tokens)
        self.nodes_expanded += count
        return clean_action(texts[0], self.pack.action_prefix_pattern) if texts else ""

    async def extend(self, node: Node, action: str) -> Node:
        """Steps `action` from `node` and announces the new child (an action the
        environment cannot take is an invalid child, not sent)."""
        child = Node(id=f"{node.id}.{len(node.children)}", parent=node, depth=node.depth + 1,
                     action=action, sample_count=1, sc_score=1.0, visits=1)
        why = self._unusable(action)
        if why:
            child.invalid_action, child.observation, child.state = True, why, node.state
        else:
            await self.step_children(node, [child])
        node.children.append(child)
        self.answers.register(child)
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

    async def reflect_before_expanding(self, node: Node) -> None:
        """With lazy_reflection: the reflection on a failed attempt, made when the node
        is about to be expanded (its children's prompts are the only ones that show it)."""
        config = self.config
        if (config.reflection and config.complete_answer_actions and config.lazy_reflection
                and node is not self.root and not node.invalid_action and not node.reflection
                and not self.is_success(node)):
            await self.reflect(node)

    async def break_ties(self) -> None:
        """Before the answer is chosen: the model's judgment between close classes of
        answers (planner.tie_break), noted in the answer's reason."""
        self.answers.tie_note = await break_tie(self)

    def answer_settled(self) -> bool:
        """With answer_rule "agreement": a class of passing answers is big enough to stop."""
        return self.config.answer_rule == "agreement" and self.answers.settled()

    async def reflect(self, leaf: Node) -> None:
        """A reflection on `leaf`: in its branch (config.complete_answer_actions) or in memory."""
        texts = await self.sample(self.renderer.reflect(leaf), "reflect", leaf.id, 1, 0.0,
                                  self.pack.reflect_stop, self.pack.reflect_max_tokens or 256)
        text = texts[0].strip() if texts else ""
        if not text:
            return
        if self.config.complete_answer_actions:
            leaf.reflection = text          # shown in this branch only
        else:
            self.reflections.append(text)   # global memory for later prompts
        self.events.reflection(leaf, text)

    # ----------------------------------------------------------------- answer
    def default_answer(self) -> Node | None:
        """The answer by config.answer_rule: "agreement" (planner.answers), or
        "value" (and where agreement has nothing to go on): a success, else the
        best terminal state, else the best node."""
        if self.config.answer_rule == "agreement":
            chosen = self.answers.choose()
            if chosen is not None:
                return chosen
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
