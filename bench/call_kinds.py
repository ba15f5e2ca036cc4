"""Where each method's model calls went, per task: prints figures, changes nothing.

    python bench/call_kinds.py bench/results/DIR/results.jsonl [--labels react,lats]

From the `calls_by_kind` of `lats bench` records: for every label (and seed),
the mean calls per task that sampled actions at the root ("act:root"), at any
deeper node ("act:deeper": the tree's deeper steps, and ReAct's later steps),
valued states ("value"), reflected ("reflect"), wrote whole transcripts
("cot") or wrote the model's own tests ("setup"); with the tasks, prompt and
completion tokens, the cached share of the prompt tokens and wall seconds per
task. Records made before the counts were kept are left out (and counted).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from pathlib import Path

KINDS = ("act:root", "act:deeper", "value", "reflect", "cot", "setup")


def rows(records: list[dict], labels: list[str]) -> list[tuple[str, int, dict]]:
    """(label, seed, figures) in the order of `labels` (all labels when empty)."""
    groups: dict[tuple[str, int], list[dict]] = defaultdict(list)
    for record in records:
        if "calls_by_kind" in record and (not labels or record["label"] in labels):
            groups[(record["label"], int(record["requested"].get("seed", 0)))].append(record)
    order = labels or list(dict.fromkeys(label for label, _ in groups))
    result = []
    for (label, seed), members in sorted(groups.items(),
                                         key=lambda item: (order.index(item[0][0]), item[0][1])):
        kinds: Counter[str] = Counter()
        for record in members:
            kinds.update(record["calls_by_kind"])
        tasks = len(members)
        prompt = sum(r["prompt_tokens"] for r in members)
        result.append((label, seed, {
            "tasks": tasks,
            **{kind: kinds[kind] / tasks for kind in KINDS},
            "calls": sum(r["calls"] for r in members) / tasks,
            "prompt": prompt / tasks,
            "completion": sum(r["completion_tokens"] for r in members) / tasks,
            "cached": sum(r.get("cached_prompt_tokens", 0) for r in members) / prompt
            if prompt else 0.0,
            "wall": sum(r["wall_seconds"] for r in members) / tasks,
        }))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", type=Path)
    parser.add_argument("--labels", default="", help="comma-separated variant labels")
    args = parser.parse_args()
    records = [json.loads(line) for line in args.records.read_text().splitlines() if line.strip()]
    labels = [label for label in args.labels.split(",") if label]
    skipped = sum(1 for r in records if "calls_by_kind" not in r)
    header = ["label", "seed", "tasks", *KINDS, "calls", "prompt tok", "compl tok", "cached",
              "wall s"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for label, seed, f in rows(records, labels):
        cells = [label, str(seed), str(f["tasks"]), *(f"{f[k]:.1f}" for k in KINDS),
                 f"{f['calls']:.1f}", f"{f['prompt']:,.0f}", f"{f['completion']:,.0f}",
                 f"{f['cached']:.0%}", f"{f['wall']:.0f}"]
        print("| " + " | ".join(cells) + " |")
    if skipped:
        print(f"({skipped} records without call kinds left out)")


if __name__ == "__main__":
    main()
