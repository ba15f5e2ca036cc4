"""How often a step led back to what an earlier step on its own path showed: prints figures.

    python bench/revisits.py bench/results/DIR/planner-runs.sqlite3

For every stored run and every valid step (not the root, not an invalid
action), whether its observation equals the observation of one of its
ancestors, the root included: the same search results again after going back,
the same page looked up twice. In the multi-step environments here a state's
key includes what it shows, so this counts, per method, the steps that
returned to a state already on the path: a loop, for an agent whose next move
depends only on that state. Changes nothing.
"""

from __future__ import annotations

import argparse
import asyncio
from collections import Counter

from planner.methods.registry import METHODS
from planner.runs import RunQuery, open_run_store
from planner.runs.store import MAX_LIST_LIMIT


def revisits(nodes) -> tuple[int, int]:
    """(valid steps, those whose observation an ancestor on their path already showed)."""
    by_id = {node.id: node for node in nodes}
    steps = loops = 0
    for node in nodes:
        if not node.parent_id or node.invalid_action:
            continue
        steps += 1
        ancestor = by_id.get(node.parent_id)
        while ancestor is not None:
            if ancestor.observation == node.observation:
                loops += 1
                break
            ancestor = by_id.get(ancestor.parent_id) if ancestor.parent_id else None
    return steps, loops


async def measure(location: str) -> tuple[Counter, Counter, Counter]:
    """Per method: runs, valid steps, and steps that revisit an ancestor's observation."""
    runs, steps, loops = Counter(), Counter(), Counter()
    store = open_run_store(location)
    await store.open()
    try:
        for method in METHODS:
            for listed in await store.every_run(RunQuery(method=method, limit=MAX_LIST_LIMIT)):
                counted, looped = revisits((await store.get(listed.run_id)).nodes)
                runs[method] += 1
                steps[method] += counted
                loops[method] += looped
    finally:
        await store.close()
    return runs, steps, loops


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("store", help="the run store: a SQLite file or a postgresql:// URL")
    args = parser.parse_args()
    runs, steps, loops = asyncio.run(measure(args.store))
    print(f"{'method':<12} {'runs':>5} {'steps':>6} {'revisits':>9} {'share':>6}")
    for method in sorted(runs):
        share = loops[method] / steps[method] if steps[method] else 0.0
        print(f"{method:<12} {runs[method]:>5} {steps[method]:>6} {loops[method]:>9} {share:>6.0%}")


if __name__ == "__main__":
    main()
