"""Chain of thought (CoT) and CoT with self-consistency (CoT-SC), over the protocol.

"Reasoning only" here means the model never sees an observation from the
environment. A transcript is written from the act prompt without the act
stop sequences, so a model may write the whole trajectory in one go (its
actions and its own guesses of the observations, in the pack's step format);
the planner reads the actions out of it (planner.transcript) and
steps them in order in the environment, which only checks them. When the
transcript stops short of a terminal state (packs often ask for one step per
reply), the model continues from the act prompt whose trajectory shows its
own actions with every observation left blank, until a terminal state, the
depth limit d or an empty reply; each continuation is one more call.
In an environment where every action is a complete answer attempt (a whole
program) the transcript's first action is the attempt and the transcript
ends there, failed or not (so it is written with the act stop sequences and
token limit, and LATS's greedy first child is this very request): CoT is one attempt without feedback (the papers'
"simple" baseline) and CoT-SC is k independent attempts with a vote. In a
tool-using environment the tool's results are never seen, so CoT is the
reasoning-only baseline of the papers.

  cot     one transcript, greedy (temperature 0 unless the request sets one).
  cot_sc  k transcripts (their first calls n at a time) and a majority vote
          over their final actions (the answers), counted over transcripts
          that ended in a valid terminal state (all transcripts if none did).
          The earliest transcript with the winning answer is the run's
          answer; rewards and scores play no part in the vote.
"""

from __future__ import annotations

from collections import Counter

from planner.context import SearchContext
from planner.transcript import split_transcript
from planner.model_client import BudgetExhausted
from planner.prompting import action_key
from planner.search import SearchResult, Strategy
from planner.tree import Node


class CotSearch(Strategy):
    """k whole-trajectory transcripts, stepped open-loop; majority answer."""

    def __init__(self):
        self.leaves: list[Node] = []     # the last node of each followed transcript
        self.budget_note = ""

    @staticmethod
    async def _transcripts(ctx: SearchContext) -> tuple[list[str], str]:
        """Up to k transcripts, n per call; and why fewer, if the model budget ran out."""
        k, per_call = ctx.config.iterations, max(1, ctx.config.n_samples)
        stop, max_tokens = ctx.transcript_params()
        texts: list[str] = []
        try:
            while len(texts) < k:
                n = min(per_call, k - len(texts))
                texts += await ctx.sample(
                    ctx.renderer.act(ctx.root, ()), "cot", f"{ctx.root.id}@{len(texts)}", n,
                    ctx.config.temperature, stop, max_tokens)
        except BudgetExhausted as exc:
            return texts, f"model budget spent after {len(texts)} transcripts: {exc}"
        return texts, ""

    async def _follow(self, ctx: SearchContext, index: int, text: str) -> Node | None:
        """Steps transcript `index` from the root, continuing it blind when it
        stops short; the last node reached (None if it gave no action)."""
        node, depth = ctx.root, ctx.config.max_depth
        pack = ctx.pack
        while True:
            actions = split_transcript(text, pack.step_template, node.depth + 1,
                                       pack.act_stop, pack.action_prefix_pattern,
                                       depth - node.depth)
            if ctx.complete_answer_actions:
                actions = actions[:1]            # the attempt; the rest is the model's guess
            for action in actions:
                if node.terminal:
                    break
                ctx.nodes_expanded += 1
                node = await ctx.extend(node, action)
            if (not actions or node.terminal or node.depth >= depth
                    or ctx.complete_answer_actions):
                break
            try:
                stop, max_tokens = ctx.transcript_params()
                text, = await ctx.sample(
                    ctx.renderer.act(_blind(node), ()), "cot", f"{node.id}@{index}", 1,
                    ctx.config.temperature, stop, max_tokens)
            except BudgetExhausted as exc:
                self.budget_note = f"model budget spent during a continuation: {exc}"
                break
        return node if node is not ctx.root else None

    async def search(self, ctx: SearchContext) -> SearchResult:
        ctx.events.iteration(1)
        ctx.events.selected(ctx.root, 1)
        texts, short = await self._transcripts(ctx)
        ctx.iterations = len(texts)
        leaves = [await self._follow(ctx, i, text) for i, text in enumerate(texts)]
        self.leaves = [leaf for leaf in leaves if leaf is not None]
        reason = (short or self.budget_note
                  or f"majority over {len(self.leaves)} of {len(texts)} transcripts")
        return SearchResult(reason, answer=self.choose_answer(ctx))

    def choose_answer(self, ctx: SearchContext) -> Node | None:
        voters = [n for n in self.leaves if n.terminal and not n.invalid_action] or self.leaves
        if not voters:
            return None
        votes = Counter(action_key(n.action) for n in voters)
        winner = max(votes, key=lambda key: votes[key])   # ties: the earliest answer
        return next(n for n in voters if action_key(n.action) == winner)


def _blind(node: Node) -> Node:
    """A copy of `node`'s trajectory with every observation left blank."""
    copy = Node(id="blind", observation=node.path()[0].observation)
    for step in node.trajectory():
        copy = Node(id="blind", parent=copy, depth=step.depth, action=step.action)
    return copy
