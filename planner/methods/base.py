"""What every baseline shares with LATS: the tree, the services, the accounting.

A `SearchMethod` is a `LatsSearch` with its own control loop. It keeps LATS's
per-node operations (start with the pack's setup, step a child in its own
forked session, evaluate, reflect, pick and score the answer) and the same
event sink, so every method is run through the same environment protocol,
prompt pack, model budget and usage accounting, and is reported the same way.

Subclasses implement `search(outcome)`: grow the tree from `self.root`, set
`outcome.iterations` (what k counts for the method) and `outcome.reason`, and
optionally `outcome.answer`. `LatsSearch.run()` wraps it: start, stop gracefully
when the model budget is spent, choose (`choose_answer`) and score the answer,
time the run.

`nodes_expanded` counts model generations at a state: one per act call (or per
step of a model-written transcript), as LATS counts one per expansion.
"""

from __future__ import annotations

from planner.lats import LatsSearch, SearchOutcome, derived_seed
from planner.model_client import SamplingParams
from planner.prompting import clean_action
from planner.tree import Node, mark_exhausted


class SearchMethod(LatsSearch):
    """Base of the methods that are not LATS's MCTS loop."""

    async def search(self, outcome: SearchOutcome) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------ primitives
    def passed(self, node: Node) -> bool:
        """The environment's binary verdict on a terminal state: its reward
        reaches the success threshold (in honest mode that reward carries no
        hidden ground truth, e.g. model-written tests, so it may be used)."""
        return node.terminal and not node.invalid_action and node.reward >= self._success_threshold

    async def generate(self, messages, purpose: str, key: str, n: int, temperature: float,
                       stop, max_tokens: int) -> list[str]:
        """n completions; the seed depends on the run seed, the purpose and `key`."""
        params = SamplingParams(n=n, temperature=temperature, stop=tuple(stop),
                                max_tokens=max_tokens or 256,
                                seed=derived_seed(self.config.seed, purpose, key),
                                purpose=purpose)
        return await self.model.complete(messages, params)

    async def propose(self, node: Node, reflections, key: str) -> str:
        """One next action at `node` from the act prompt ("" if the model gave none)."""
        texts = await self.generate(self.renderer.act(node, reflections), "act", key, 1,
                                    self.config.temperature, self.pack.act_stop,
                                    self.pack.act_max_tokens)
        self.nodes_expanded += 1
        return clean_action(texts[0], self.pack.action_prefix_pattern) if texts else ""

    async def extend(self, node: Node, action: str) -> Node:
        """Steps `action` from `node` in a forked session and announces the new child."""
        child = Node(id=f"{node.id}.{len(node.children)}", parent=node, depth=node.depth + 1,
                     action=action, sample_count=1, sc_score=1.0, visits=1)
        await self._step_children(node, [child])
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
            same = node is not self.root and same_action(node.action, action)
            repeats = repeats + 1 if same else 1
            node = await self.extend(node, action)
            if repeat_limit and repeats >= repeat_limit:
                return node, f"the same action {repeats} times in a row"
        return node, "terminal state"


def same_action(a: str, b: str) -> bool:
    """Equal up to whitespace."""
    return " ".join(a.split()) == " ".join(b.split())
