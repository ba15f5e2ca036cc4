"""What refining a failed program buys, by the kind of failure it refines: prints figures.

    python bench/refinement_yield.py bench/results/DIR/planner-runs.sqlite3 [--method lats]

Reads the code runner's trees from a planner's run store (a SQLite file or a
postgresql:// URL). Every failed program that was refined (a node with
children, or with draws made at it: its kept "act" calls) is classed by the
first failure its test report shows:

  syntax     the program does not compile
  load       it raised while loading (before any test ran)
  timeout    it timed out;  memory  it ran out of memory;  crash  it crashed
  raised     a test raised an exception in the program (TypeError, ...)
  wrong      every failed test returned a wrong value

For each kind: programs refined, refinement calls made at them, new programs
those calls gave, refinements that pass the task's visible checks (reward 1)
or pass more of them than their parent. A run whose tree is the same, node for
node, as one already counted (a variant replaying the same samples from the
response cache) counts once. Which kinds a refinement rarely fixes
is read off this table, on the development slice (not on test problems).

A second table sets fresh samples beside refinements, the two choices
adaptive branching weighs: per choice, the calls made, the new programs they
gave, those programs' mean share of visible tests passed, how many pass, and
the graded reward per sample drawn (what adaptive branching's posteriors
observe: a sample that only repeats a known program adds 0). Its prior means
(wider_prior, deeper_prior) are read off that column, on the development
slice.
"""

from __future__ import annotations

import argparse
import asyncio
import re
from collections import Counter, defaultdict

from planner.runs import RunQuery, open_run_store
from planner.runs.store import MAX_LIST_LIMIT

KINDS = ("syntax", "load", "timeout", "memory", "crash", "raised", "wrong")
_PROBLEMS = (("does not compile", "syntax"), ("raised an error while loading", "load"),
             ("timed out", "timeout"), ("ran out of memory", "memory"), ("crashed", "crash"))
_RAISED = re.compile(r"# raised |# output: \w*(Error|Exception)\b")


def failure_kind(observation: str) -> str:
    """The kind of the first failure a code-runner test report shows."""
    for marker, kind in _PROBLEMS:
        if observation.startswith("The program") and marker in observation.split("\n", 1)[0]:
            return kind
    failed = observation.split("Tests failed:", 1)[-1]
    return "raised" if _RAISED.search(failed) else "wrong"


def tree_signature(run) -> tuple:
    """The run's task and every node's id and action: equal for two runs that
    grew the same tree."""
    return (run.task_id, tuple(sorted((node.id, node.action) for node in run.nodes)))


async def measure(location: str, method: str) -> tuple[dict[str, Counter], dict[str, Counter]]:
    """Per failure kind: refined, calls, new programs, passing and improving children;
    per choice (fresh sample, refinement): calls, new programs, their summed graded
    reward and how many pass."""
    store = open_run_store(location)
    await store.open()
    table: dict[str, Counter] = defaultdict(Counter)
    choices: dict[str, Counter] = defaultdict(Counter)
    seen: set[tuple] = set()
    try:
        for listed in await store.every_run(RunQuery(method=method, limit=MAX_LIST_LIMIT)):
            run = await store.get(listed.run_id)
            tree = tree_signature(run)
            if tree in seen:
                continue
            seen.add(tree)
            nodes = {node.id: node for node in run.nodes}
            children = defaultdict(list)
            for node in run.nodes:
                if node.parent_id:
                    children[node.parent_id].append(node)
            acts = [call for call in await store.calls(run.run_id) if call.purpose == "act"]
            calls = Counter(call.node_id.split("#")[0] for call in acts)
            samples = Counter()
            for call in acts:
                samples[call.node_id.split("#")[0]] += len(call.completions)
            for node_id, node in nodes.items():
                choice = choices["fresh sample" if node.depth == 0 else "refinement"]
                if node.depth == 0 or (node.depth >= 1 and not node.invalid_action
                                       and node.reward < 1.0):
                    choice["calls"] += calls[node_id]
                    choice["samples"] += samples[node_id]
                    valid = [c for c in children[node_id] if not c.invalid_action]
                    choice["new programs"] += len(valid)
                    choice["graded"] += sum(min(1.0, max(0.0, c.reward)) for c in valid)
                    choice["passing"] += sum(1 for c in valid if c.reward >= 1.0)
                refined = node.depth >= 1 and (calls[node_id] or children[node_id])
                if not refined or node.invalid_action or node.reward >= 1.0:
                    continue
                kind = table[failure_kind(node.observation)]
                kind["refined"] += 1
                kind["calls"] += calls[node_id]
                valid = [c for c in children[node_id] if not c.invalid_action]
                kind["new programs"] += len(valid)
                kind["passing"] += sum(1 for c in valid if c.reward >= 1.0)
                kind["improving"] += sum(1 for c in valid if c.reward > node.reward)
    finally:
        await store.close()
    return table, choices


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", help="the run store: a SQLite file or a postgresql:// URL")
    parser.add_argument("--method", default="lats")
    args = parser.parse_args()
    table, choices = asyncio.run(measure(args.store, args.method))
    header = ["kind", "refined", "calls", "new programs", "passing", "improving"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for kind in KINDS:
        if table[kind]["refined"]:
            print("| " + " | ".join([kind, *(str(table[kind][h]) for h in header[1:])]) + " |")
    print()
    print("| choice | calls | samples | new programs | mean share passed | passing | "
          "graded reward per sample |")
    print("|---|---|---|---|---|---|---|")
    for name in ("fresh sample", "refinement"):
        row = choices[name]
        mean = f"{row['graded'] / row['new programs']:.2f}" if row["new programs"] else "-"
        per_sample = f"{row['graded'] / row['samples']:.3f}" if row["samples"] else "-"
        print(f"| {name} | {row['calls']} | {row['samples']} | {row['new programs']} | {mean} | "
              f"{row['passing']} | {per_sample} |")


if __name__ == "__main__":
    main()
