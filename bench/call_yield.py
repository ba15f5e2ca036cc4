"""Where a search's sampling calls go, and what they buy: prints figures, changes nothing.

    python bench/call_yield.py bench/results/DIR/planner-runs.sqlite3 --method lats \
        [--since 2026-11-27T20:20 --until 2026-11-27T21:50]

Reads the runs and their kept model calls (purpose "act": every expansion)
from a planner's run store (a SQLite file or a postgresql:// URL). Each call
is put in one of four places: the root's first draw, the root's later draws
(progressive widening, or a redraw after an all-repeat draw), a revision's
first draw (a call at a non-root node) and a revision's later draws. For each
place: calls, samples, new programs per call (samples whose text no earlier
sample of the run had), and how many nodes that pass the environment's checks
(reward at the success threshold, 1 here) were first attempts at the root or
revisions. The window (`--since`, `--until`, RFC 3339 prefixes compared as
text) picks one bench's runs out of a store that holds several.
"""

from __future__ import annotations

import argparse
import asyncio
from collections import Counter, defaultdict

from planner.runs import RunQuery, open_run_store
from planner.runs.store import MAX_LIST_LIMIT

PLACES = ("root, first draw", "root, later draws", "revision, first draw", "revision, later draws")


def place(node_id: str) -> str:
    """A call's place from its node id ("0.1", or "0.1#2" for the node's third draw)."""
    node, _, draw = node_id.partition("#")
    return f"{'root' if node == '0' else 'revision'}, {'later draws' if draw else 'first draw'}"


async def measure(location: str, method: str, since: str, until: str) -> None:
    store = open_run_store(location)
    await store.open()
    try:
        runs = [r for r in await store.every_run(RunQuery(method=method, limit=MAX_LIST_LIMIT))
                if since <= r.created_at and (not until or r.created_at < until)]
        calls, samples, new = Counter(), Counter(), Counter()
        passing: dict[str, int] = defaultdict(int)
        for listed in runs:
            run = await store.get(listed.run_id)
            seen: set[str] = set()
            for call in await store.calls(run.run_id):
                where = place(call.node_id)
                calls[where] += 1
                samples[where] += len(call.completions)
                for text in call.completions:
                    if text.strip() not in seen:
                        seen.add(text.strip())
                        new[where] += 1
            for node in run.nodes:
                if node.depth >= 1 and node.reward >= 1.0 and not node.invalid_action:
                    passing["first attempts at the root" if node.depth == 1 else "revisions"] += 1
    finally:
        await store.close()
    print(f"{len(runs)} {method} runs")
    for where in PLACES:
        if calls[where]:
            print(f"{where:>22}: {calls[where]:4} calls, {samples[where]:5} samples, "
                  f"{new[where] / calls[where]:.2f} new programs per call")
    print("nodes that pass the checks: " + ", ".join(f"{k} {v}" for k, v in passing.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", help="the run store: a SQLite file or a postgresql:// URL")
    parser.add_argument("--method", default="lats")
    parser.add_argument("--since", default="", help="only runs created at or after this time")
    parser.add_argument("--until", default="", help="only runs created before this time")
    args = parser.parse_args()
    asyncio.run(measure(args.store, args.method, args.since, args.until))


if __name__ == "__main__":
    main()
