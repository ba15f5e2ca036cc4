"""Choosing between close classes of answers by the model's judgment of where they
differ (S*: Li et al., 2025), before the agreement rule picks the largest class.

Where the largest classes of answers that pass the environment's checks are
within one sample of each other (planner.answers), and the environment shows
what each answer is made of (StepResult.answer_facets: the code runner's
probe calls, built from the task statement alone, and each program's value on
them), the planner takes the facets on which the close classes' values differ
(at most MAX_QUESTIONS, in the environment's order) and asks the model, once
per facet, which value is right (the pack's compare_template, greedily). Each
answer names a label; the classes holding that value get a point. A class with
more points than every other is preferred; otherwise size decides, as without
the tie-break. Hidden ground truth plays no part: the facets come from the
statement, the judgment from the model. Each question is one model call and
counts in the run's budget; when the budget is spent, the points so far decide.
"""

from __future__ import annotations

import logging
import re
import string
from typing import TYPE_CHECKING

from planner.model_client import BudgetExhausted
from planner.tree import Node

if TYPE_CHECKING:                       # the context hands itself in; it stands above
    from planner.context import SearchContext

log = logging.getLogger(__name__)
MAX_QUESTIONS = 3
CLOSE = 1                               # classes within this many votes of the largest
LABELS = string.ascii_uppercase


def votes(members: list[Node]) -> int:
    return sum(node.votes for node in members)


def close_classes(classes: list[list[Node]]) -> list[list[Node]]:
    """The classes within CLOSE votes of the largest, largest first (stable)."""
    if not classes:
        return []
    top = max(votes(members) for members in classes)
    close = [members for members in classes if votes(members) >= top - CLOSE]
    return sorted(close, key=votes, reverse=True)


def differing_facets(representatives: list[Node]) -> list[str]:
    """Facet names every representative has, on which their values are not all equal,
    in the first representative's order."""
    names = [name for name in representatives[0].answer_facets
             if all(name in node.answer_facets for node in representatives[1:])]
    return [name for name in names
            if len({node.answer_facets[name] for node in representatives}) > 1]


async def break_tie(ctx: SearchContext) -> str:
    """Sets ctx.answers.preferred to the class the model's judgments favour (if one
    wins outright); returns what was done, for the answer's reason ("" if nothing)."""
    pack = ctx.pack
    if (not ctx.config.tie_break or ctx.config.answer_rule != "agreement"
            or not pack.compare_template or not pack.compare_pattern):
        return ""
    close = [members for members in close_classes(ctx.answers.passing_classes())
             if any(node.answer_facets for node in members)]
    if len(close) < 2:
        return ""
    representatives = [next(node for node in members if node.answer_facets)
                       for members in close]
    facets = differing_facets(representatives)[:MAX_QUESTIONS]
    points = [0] * len(close)
    asked = 0
    for facet in facets:
        values = list(dict.fromkeys(node.answer_facets[facet] for node in representatives))
        options = "\n".join(f"{LABELS[i]}. {value}" for i, value in enumerate(values))
        try:
            text, = await ctx.sample(ctx.renderer.compare(facet, options), "compare",
                                     f"compare:{asked}", 1, 0.0, pack.compare_stop,
                                     pack.compare_max_tokens or 64)
        except BudgetExhausted:
            break
        asked += 1
        match = re.search(pack.compare_pattern, text)
        label = match.group(1).strip().upper() if match else ""
        if label not in LABELS[:len(values)]:
            log.info("compare answer for %s named no option: %r", facet, text[:120])
            continue
        chosen = values[LABELS.index(label)]
        for index, node in enumerate(representatives):
            if node.answer_facets[facet] == chosen:
                points[index] += 1
    best = max(points, default=0)
    if best and points.count(best) == 1:
        winner = close[points.index(best)][0]
        ctx.answers.preferred = winner
        return (f"the model's judgment on {asked} input(s) where {len(close)} close classes "
                f"differ favoured it ({best} of {asked})")
    return f"asked on {asked} input(s) where {len(close)} close classes differ; no class won"
