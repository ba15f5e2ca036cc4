"""Search-tree nodes, the UCT selection rule and backpropagation.

Statistics follow the LATS paper (Zhou et al., 2024, Algorithm 1):

  selection        UCT(s) = V(s) + w * sqrt( ln N(p) / N(s) )          (p = parent)
  backpropagation  N(s) <- N(s) + 1
                   V(s) <- ( V_old(s) * (N(s) - 1) + r ) / N(s)       (running mean)

A node's evaluation (planner.evaluation) is its first estimate of V and counts
as its first observation, so a freshly evaluated node has N = 1 and V = V_eval.
This keeps UCT finite for new children and lets the value function order them,
and each later backpropagated reward moves V by the running-mean rule above.
The root starts with N = 1 and V = 0 (it is never evaluated).

A node is *exhausted* when nothing below it can be explored any more: it is
terminal, it sits at the depth limit, or it was expanded and every child is
exhausted. Selection never descends into exhausted nodes, so a tree whose every
branch is finished ends the search instead of spinning.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from planner.environment import EnvState

NOT_EVALUATED = -1.0


@dataclass(slots=True)
class Tally:
    """Graded rewards in [0, 1] observed for one choice: the Beta posterior's counts
    (a reward r adds r successes and 1 - r failures; planner.branching)."""

    successes: float = 0.0
    failures: float = 0.0

    def add(self, reward: float) -> None:
        reward = min(1.0, max(0.0, reward))
        self.successes += reward
        self.failures += 1.0 - reward

    @property
    def count(self) -> float:
        return self.successes + self.failures


@dataclass(eq=False)
class Node:
    """One state of the environment, reached by `action` from `parent`."""

    id: str
    parent: Node | None = None
    depth: int = 0
    action: str = ""
    observation: str = ""
    reward: float = 0.0          # raw environment reward of the step into this node
    terminal: bool = False       # terminated or truncated by the environment
    invalid_action: bool = False
    state: EnvState | None = None  # the environment's state here (planner.environment)
    children: list[Node] = field(default_factory=list)
    expanded: bool = False
    exhausted: bool = False
    visits: int = 0              # N(s)
    value: float = 0.0           # V(s), the running mean
    lm_score: float = NOT_EVALUATED  # LM value in [0, 1]
    sc_score: float = 0.0        # self-consistency share in [0, 1]
    sample_count: int = 0        # samples (of n) that proposed this action
    reflection: str = ""         # this node's own reflection, shown in its branch
    virtual_loss: int = 0        # selections in flight through this node (parallel MCTS)
    answer_key: str = ""         # the environment's identity of this result's answer
    state_key: str = ""          # ... of the state it leads to (siblings with one key merge)
    returns_to: Node | None = None  # prune_loops: the node on its path whose state it is
    answer_facets: dict[str, str] = field(default_factory=dict)  # what the answer is made of
    failure_kind: str = ""       # the kind of failure the environment says this state shows
    agreement: float = 0.0       # share of its expansion's samples giving the same answer
    repeats: int = 0             # later samples merged into this node (dedup)
    draws: int = 0               # expansions of this node that sampled actions
    empty_draws: int = 0         # of them, in a row, ones whose every sample was a repeat
    wider: Tally = field(default_factory=Tally)     # graded rewards of draws at this node
    deeper: Tally = field(default_factory=Tally)    # ... of draws below its children
    subtree: Tally = field(default_factory=Tally)   # ... of this node and draws below it

    @property
    def votes(self) -> int:
        """Samples that gave this node's action or answer: its own and its repeats."""
        return max(self.sample_count, 1) + self.repeats

    def path(self) -> list[Node]:
        """Nodes from the root down to this one, inclusive."""
        nodes: list[Node] = []
        node: Node | None = self
        while node is not None:
            nodes.append(node)
            node = node.parent
        return nodes[::-1]

    def trajectory(self) -> list[Node]:
        """The steps taken to reach this node (the path without the root)."""
        return self.path()[1:]

    def walk(self) -> Iterator[Node]:
        """This node and all its descendants, depth-first, children in order."""
        yield self
        for child in self.children:
            yield from child.walk()


SelectionRule = Callable[[Node, Node], float]


def uct_rule(exploration_weight: float) -> SelectionRule:
    """UCT(s) = V(s) + w * sqrt(ln N(p) / N(s)); needs N(s) >= 1, N(p) >= 1.

    With selections in flight (parallel MCTS) each counts as a visit with
    reward 0, a virtual loss: N' = N + L and V' = V * N / N'. Without them the
    rule is the sequential one, to the last bit."""

    def uct(parent: Node, child: Node) -> float:
        if not (parent.virtual_loss or child.virtual_loss):
            exploration = math.sqrt(math.log(max(parent.visits, 1)) / max(child.visits, 1))
            return child.value + exploration_weight * exploration
        parent_n = parent.visits + parent.virtual_loss
        child_n = max(child.visits, 1) + child.virtual_loss
        value = child.value * max(child.visits, 1) / child_n
        return value + exploration_weight * math.sqrt(math.log(max(parent_n, 1)) / child_n)

    return uct


WideningRule = Callable[[Node], bool]


def progressive_widening(alpha: float) -> WideningRule:
    """Progressive widening (Coulom, 2007; Chaslot et al., 2008): an expanded node with
    N visits may draw new children again while it has had fewer than ceil(N^alpha)
    draws, so the tree keeps widening where it is visited most (alpha in (0, 1])."""

    def may_widen(node: Node) -> bool:
        return node.expanded and node.draws < math.ceil(max(node.visits, 1) ** alpha)

    return may_widen


def select_leaf(root: Node, rule: SelectionRule, widen: WideningRule | None = None
                ) -> Node | None:
    """Descends from the root by `rule` (ties to the earlier child) to a node that
    is not yet expanded, or (with `widen`) to an expanded node that may draw new
    children. Exhausted and terminal children are never candidates, nor are
    children still being stepped or evaluated (N = 0). With several selections
    in flight (parallel MCTS), a node one of them is expanding (virtual_loss > 0)
    is not free: the descent takes the next best child instead, backtracking
    where a whole subtree is taken. Returns None when no free leaf exists (the
    tree is exhausted, or every leaf is taken)."""

    def descend(node: Node) -> Node | None:
        if not node.expanded:
            return None if node.exhausted or node.virtual_loss else node
        if widen is not None and widen(node) and not node.virtual_loss:
            return node
        # a child still being evaluated (N = 0) is not yet a candidate
        candidates = [c for c in node.children
                      if not (c.exhausted or c.terminal or c.visits == 0)]
        for child in sorted(candidates, key=lambda c: rule(node, c), reverse=True):
            leaf = descend(child)
            if leaf is not None:
                return leaf
        return None

    return None if root.exhausted else descend(root)


def reopen(node: Node) -> None:
    """`node` has a child to explore again: it and its ancestors are not exhausted."""
    while node is not None and node.exhausted:
        node.exhausted = False
        node = node.parent


def mark_exhausted(node: Node) -> None:
    """Marks `node` exhausted and propagates to ancestors whose children all are."""
    node.exhausted = True
    parent = node.parent
    while parent is not None and parent.expanded and all(c.exhausted for c in parent.children):
        parent.exhausted = True
        parent = parent.parent


def backpropagate(leaf: Node, reward: float) -> list[Node]:
    """Adds `reward` to every node from `leaf` up to the root; returns root..leaf."""
    path = leaf.path()
    for node in path:
        node.visits += 1
        node.value += (reward - node.value) / node.visits
    return path
