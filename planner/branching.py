"""Where MCTS spends its next expansion: adaptive branching, wider or deeper.

AB-MCTS-A (Inoue et al., 2025; Sakana AI's TreeQuest) for a tree whose every
expansion is one model call of n samples. At every node two choices compete:

  wider    a new draw of samples at this node (GEN)
  deeper   going into one of its children (CONT), and there choosing again;
           an unexpanded child can only be drawn at: its first refinement
           (none when the environment says its kind of failure is one
           refining rarely fixes, SearchHints.unrefined_failures: then the
           draw falls back to a fresh sample at the node)

Each choice keeps a Beta posterior over the graded rewards it produced
(`Tally`): every sample a draw at node p gives is one observation, its node's
graded reward (`SearchContext.graded`: the share of visible tests passed on
code, the environment's reward, else the node's value), or 0 for a sample
that only repeated a node that does not pass. The observation goes to p's
`wider` tally and starts the new child's `subtree` tally; for every node b on
the path from the root's child down to p it also goes to b.parent's `deeper`
tally and b's `subtree` tally. Selection descends from the root: at a node,
draw theta_wider ~ Beta(prior_wider + wider) and theta_deeper ~ Beta(prior_deeper
+ deeper); the larger wins; deeper then picks the child with the largest
theta ~ Beta(prior_deeper + child.subtree) and repeats there.

Priors come from the search config as Beta means with `prior_strength`
pseudo-observations. deeper_prior 0 means refinements never pay: no deeper
observation is ever made, every draw is at the root, and the search is
best-of-n. A node whose refinements keep failing loses its deeper draws to
fresh samples; one whose refinements pass keeps being refined.

Tree-parallel search: a node with selections in flight counts each as an
observation of 0 in its wider and subtree tallies (virtual loss), and a node
whose first draw is being made (unexpanded, virtual_loss > 0) is not drawn
at again until that draw returns; an expanded node may have several draws in
flight (each its own seed).
Draws use one random generator seeded by the run's seed, so a sequential
search is reproducible.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from planner.tree import Node, SelectionRule, Tally, WideningRule, select_leaf

if TYPE_CHECKING:                       # the context hands its draws in; it stands above
    from planner.context import Draw, SearchContext


class UctDescent:
    """The paper's selection: UCT from the root down to a node not yet expanded
    (or, with progressive widening, to an expanded node that may draw again);
    draws teach it nothing beyond the values backpropagation keeps."""

    def __init__(self, rule: SelectionRule, widen: WideningRule | None = None):
        self.rule, self.widen = rule, widen

    def select(self, root: Node) -> Node | None:
        return select_leaf(root, self.rule, self.widen)

    def record(self, ctx: SearchContext, draw: Draw) -> None:
        """Nothing to learn from a draw."""


@dataclass(frozen=True)
class BetaPrior:
    """Beta(mean * strength, (1 - mean) * strength)."""

    mean: float
    strength: float

    def sample(self, tally: Tally, rng: random.Random, losses: int = 0) -> float:
        """A draw from the posterior after `tally` (and `losses` pending zeros)."""
        a = self.mean * self.strength + tally.successes
        b = (1.0 - self.mean) * self.strength + tally.failures + losses
        if a <= 0.0:
            return 0.0
        if b <= 0.0:
            return 1.0
        return rng.betavariate(a, b)


class AdaptiveBranching:
    """Thompson sampling between wider and deeper at every node (module docstring).

    `may_draw(node)` says whether a draw at `node` is possible at all (not
    terminal, not at the depth limit, not given up on after repeated empty
    draws, not a failure the environment says refining rarely fixes); the
    search context decides that (SearchContext.may_draw). With `drawable_only`
    (set where the environment names such failures), deeper competes only over
    children that have been drawn at or can be; without it, over every visited
    child, and a child that cannot be drawn at falls back to a fresh sample at
    its parent (the same random draws as searches before the rule)."""

    def __init__(self, wider: BetaPrior, deeper: BetaPrior, rng: random.Random,
                 may_draw, drawable_only: bool = False):
        self.wider, self.deeper, self.rng = wider, deeper, rng
        self.may_draw = may_draw
        self.drawable_only = drawable_only

    def select(self, root: Node) -> Node | None:
        """The node to draw at next, or None when no node can be drawn at (every
        branch is finished, or every free node is taken by a selection in flight)."""
        return self._choose(root)

    def _choose(self, node: Node) -> Node | None:
        if not node.expanded:       # its first draw: not while another selection makes it
            return node if self.may_draw(node) and not node.virtual_loss else None
        can_draw = self.may_draw(node)
        children = [c for c in node.children
                    if not (c.exhausted or c.terminal or c.visits == 0)
                    and (not self.drawable_only or c.expanded or self.may_draw(c))]
        wider = self.wider.sample(node.wider, self.rng, node.virtual_loss) if can_draw else -1.0
        deeper = self.deeper.sample(node.deeper, self.rng) if children else -1.0
        if can_draw and wider >= deeper:
            return node
        ranked = sorted(children, key=lambda c: self.deeper.sample(
            c.subtree, self.rng, c.virtual_loss), reverse=True)
        for child in ranked:
            chosen = self._choose(child)
            if chosen is not None:
                return chosen
        return node if can_draw else None

    def record(self, ctx: SearchContext, draw: Draw) -> None:
        """Every sample of `draw` is one observation (Draw.observations)."""
        for score, new_child in draw.observations(ctx):
            self.observe(draw.parent, score, new_child)

    @staticmethod
    def observe(parent: Node, score: float, new_child: Node | None = None) -> None:
        """One sample drawn at `parent` scored `score`: wider at `parent` (and the
        first observation of `new_child`, the node it made, if any), deeper at every
        ancestor above it (its child on the path gets it in its subtree)."""
        parent.wider.add(score)
        if new_child is not None:
            new_child.subtree.add(score)
        node = parent
        while node.parent is not None:
            node.parent.deeper.add(score)
            node.subtree.add(score)
            node = node.parent
