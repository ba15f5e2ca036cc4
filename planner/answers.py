"""The answers one search has found: repeats, classes of equal answers, the answer rule.

Two results are the same answer when the environment gave them the same
answer key (StepResult.answer_key: e.g. programs that behave alike on the
task's probe inputs); without a key, when their actions are the same text.
A class's votes are the samples that gave its answer, repeats merged into
its nodes included.

The agreement rule (answer_rule "agreement"): among the answers that pass the
environment's own visible checks (a terminal state whose step reward reaches
the success threshold; hidden ground truth is never read), the class with the
most votes, ties going to the class of the greedy first attempt, then to the
class with the best-valued member, then to the earliest class found; its
greedy member if it has one, else its earliest. Where honest rewards are no
check at all (SearchContext.passed), every answer passes, and the rule is a
vote among the answers the search reached.
If nothing passes, the greedy attempt (CoT's own answer) where every action
is an answer, so a search that finds nothing better returns what one greedy
sample would; elsewhere the paper's rule (the best terminal state).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from planner.prompting import action_key
from planner.tree import Node

if TYPE_CHECKING:
    from planner.context import SearchContext


def identity(node: Node) -> str:
    """The class a node's answer belongs to: its answer key, else its action's text."""
    return f"key:{node.answer_key}" if node.answer_key else f"text:{action_key(node.action)}"


class AnswerBook:
    """Every kept node in order of creation, by text and by answer key."""

    def __init__(self, ctx: SearchContext):
        self._ctx = ctx
        self._order: dict[int, int] = {}          # id(node) -> creation index
        self._by_text: dict[str, Node] = {}
        self._by_key: dict[str, Node] = {}
        self.greedy: Node | None = None
        self.repeats_merged = 0
        self.reason = ""
        self.preferred: Node | None = None    # a member of the class the tie-break chose
        self.tie_note = ""

    # -------------------------------------------------------------- repeats
    def repeat_of_text(self, action: str, parent: Node) -> Node | None:
        """The node whose action is this text: anywhere in the tree where every action
        is an answer (its result does not depend on the attempts before it), else
        among `parent`'s children (the same action from the same state)."""
        key = action_key(action)
        if not self._ctx.complete_answer_actions:
            return next((child for child in parent.children if not child.invalid_action
                         and action_key(child.action) == key), None)
        return self._by_text.get(key)

    def repeat_of_key(self, node: Node) -> Node | None:
        """A kept node whose result gave the same answer key as `node`."""
        known = self._by_key.get(node.answer_key) if node.answer_key else None
        return known if known is not node else None

    def merge(self, known: Node, count: int) -> None:
        """`count` more samples gave `known`'s answer."""
        known.repeats += count
        self.repeats_merged += count

    def register(self, node: Node) -> None:
        """A node kept in the tree (after it was stepped)."""
        self._order.setdefault(id(node), len(self._order))
        if not node.invalid_action:
            self._by_text.setdefault(action_key(node.action), node)
            if node.answer_key:
                self._by_key.setdefault(node.answer_key, node)

    # --------------------------------------------------------------- classes
    def passing_classes(self) -> list[list[Node]]:
        """Classes of passing answers, each in creation order, classes by first member."""
        classes: dict[str, list[Node]] = {}
        for node in self._kept():
            if self._ctx.passed(node):
                classes.setdefault(identity(node), []).append(node)
        return list(classes.values())

    def settled(self) -> bool:
        """A class of passing answers has reached config.stop_class_size votes."""
        need = max(1, self._ctx.config.stop_class_size)
        return any(_votes(members) >= need for members in self.passing_classes())

    def choose(self) -> Node | None:
        """The agreement rule (module docstring); None when it has nothing to go on."""
        classes = self.passing_classes()
        greedy = self.greedy
        if classes:
            preferred = next((members for members in classes if self.preferred in members), None)
            best = preferred or max(classes, key=lambda members: (
                _votes(members), greedy in members, max(node.value for node in members)))
            chosen = greedy if greedy in best else best[0]
            self.reason = (f"the {'chosen' if preferred else 'largest'} of {len(classes)} "
                           f"classes of answers that pass the environment's checks "
                           f"({_votes(best)} samples"
                           + (", the greedy attempt among them)" if greedy in best else ")")
                           + (f"; {self.tie_note}" if self.tie_note else ""))
            return chosen
        if greedy is not None and not greedy.invalid_action and self._ctx.complete_answer_actions:
            self.reason = "no answer passed the environment's checks: the greedy attempt"
            return greedy
        return None

    def _kept(self) -> list[Node]:
        nodes = [n for n in self._ctx.root.walk() if n is not self._ctx.root]
        return sorted(nodes, key=lambda n: self._order.get(id(n), len(self._order)))


def _votes(members: list[Node]) -> int:
    return sum(node.votes for node in members)
