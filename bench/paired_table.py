"""Per-problem, paired comparison of `lats bench` records: prints figures, changes nothing.

    python bench/paired_table.py bench/results/DIR/results.jsonl \
        --labels cot,lats,best_of_n --against cot --against best_of_n
    python bench/paired_table.py RECORDS --label cot --label 'lats:deeper=0.2,prior_weight=4' \
        --against cot

For every label and seed: hidden-test success and mean Score, calls, prompt + completion
tokens and wall seconds per problem, tokens per solved problem,
and paired wins and losses (by success; by the higher Score with
`--by-score`) against each `--against` label (at its own seed
when it ran at that seed, else at seed 0, e.g. the deterministic cot). Then
one line per problem: whether the greedy program (cot's answer) passed the
task's own examples, and each run's hidden-test verdict and calls.
Only problems every named label ran (at seed 0) are counted.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

EXAMPLES_PASSED_TAIL = "Tests failed:"


def load(path: Path, budget: int | None) -> dict[tuple[str, int], dict[str, dict]]:
    """(label, seed) -> task -> record; a later record of a job replaces an earlier one."""
    runs: dict[tuple[str, int], dict[str, dict]] = defaultdict(dict)
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        if budget is not None and record.get("max_calls") != budget:
            continue
        seed = int(record.get("requested", {}).get("seed", 0))
        runs[(record["label"], seed)][record["task_id"]] = record
    return runs


def greedy_passes_examples(cot_record: dict) -> bool:
    """cot's transcript ends with an empty "Tests failed:" list: its program passed them."""
    return cot_record.get("final_observation", "").rstrip().endswith(EXAMPLES_PASSED_TAIL)


def paired(mine: dict[str, dict], theirs: dict[str, dict], tasks: list[str],
           by_score: bool = False) -> tuple[list, list]:
    """Tasks won and lost against `theirs`: by success, or (by_score) by the higher Score."""
    both = [t for t in tasks if t in mine and t in theirs]
    if by_score:
        return ([t for t in both if score(mine[t]) > score(theirs[t])],
                [t for t in both if score(theirs[t]) > score(mine[t])])
    won = [t for t in both if mine[t]["success"] and not theirs[t]["success"]]
    lost = [t for t in both if theirs[t]["success"] and not mine[t]["success"]]
    return won, lost


def score(record: dict) -> float:
    """The record's hidden-ground-truth Score (0 where none was given)."""
    return float(record.get("score") or 0.0)


def mean_metric(records: list[dict], name: str) -> float | None:
    """The mean of Score's metric `name` (e.g. HotPotQA's token F1), or None unless every record has it."""
    values = [(r.get("metrics") or {}).get(name) for r in records]
    if not records or any(value is None for value in values):
        return None
    return sum(values) / len(values)


def short(task: str) -> str:
    return "_".join(task.split("_")[:2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", type=Path)
    parser.add_argument("--labels", default="", help="comma-separated variant labels")
    parser.add_argument("--label", action="append", default=[],
                        help="one variant label, taken whole (repeatable; for labels with commas)")
    parser.add_argument("--against", action="append", default=[], help="label to pair against")
    parser.add_argument("--budget", type=int, default=None, help="only records of this call budget")
    parser.add_argument("--by-score", action="store_true",
                        help="pair by the higher Score instead of success (WebShop's graded score)")
    args = parser.parse_args()
    labels = [*(label for label in args.labels.split(",") if label), *args.label]
    if not labels:
        parser.error("name the variants with --labels A,B or --label A --label B")
    runs = load(args.records, args.budget)
    tasks = [t for t in runs.get((labels[0], 0), {})
             if all(t in runs.get((label, 0), {}) for label in labels)]
    print(f"{len(tasks)} problems every label ran at seed 0")
    for (label, seed), by_task in sorted(runs.items(), key=lambda item: (
            labels.index(item[0][0]) if item[0][0] in labels else len(labels), item[0][1])):
        if label not in labels:
            continue
        mine = [by_task[t] for t in tasks if t in by_task]
        if not mine:
            continue
        solved = sum(r["success"] for r in mine)
        prompt = sum(r["prompt_tokens"] for r in mine)
        completion = sum(r["completion_tokens"] for r in mine)
        tokens = prompt + completion
        f1 = mean_metric(mine, "f1")
        line = (f"{label:>22} seed {seed}: {solved}/{len(mine)} solved, "
                f"mean score {sum(map(score, mine)) / len(mine):.2f}, "
                + (f"F1 {f1:.2f}, " if f1 is not None else "") +
                f"{sum(r['calls'] for r in mine) / len(mine):.1f} calls, "
                f"{prompt / len(mine):,.0f} + {completion / len(mine):,.0f} tokens, "
                f"{tokens / solved if solved else float('nan'):,.0f} tokens/solved, "
                f"{sum(r['wall_seconds'] for r in mine) / len(mine):.0f} s")
        for other in args.against:
            if other == label:
                continue
            theirs = runs.get((other, seed)) or runs.get((other, 0), {})
            won, lost = paired(by_task, theirs, tasks, args.by_score)
            line += (f"; vs {other} +{len(won)}/-{len(lost)}"
                     f" (won {' '.join(map(short, won)) or '-'}, lost {' '.join(map(short, lost)) or '-'})")
        print(line)
    print_seed_means(runs, labels, tasks)
    cot = runs.get(("cot", 0), {})
    print()
    for task in tasks:
        verdicts = []
        for (label, seed), by_task in sorted(runs.items()):
            if label in labels and task in by_task:
                record = by_task[task]
                verdicts.append(f"{label}/s{seed} {'Y' if record['success'] else 'n'}{record['calls']}")
        examples = "greedy passes examples" if task in cot and greedy_passes_examples(cot[task]) \
            else "greedy fails examples" if task in cot else ""
        print(f"{short(task):>14} {examples:>22}  " + "  ".join(verdicts))


def print_seed_means(runs: dict, labels: list[str], tasks: list[str]) -> None:
    """For each label run at several seeds on every problem: solved and calls, mean and range over seeds."""
    for label in labels:
        complete = sorted(seed for (name, seed), by_task in runs.items()
                          if name == label and all(t in by_task for t in tasks))
        if len(complete) < 2:
            continue
        solved = [sum(runs[(label, seed)][t]["success"] for t in tasks) for seed in complete]
        calls = [sum(runs[(label, seed)][t]["calls"] for t in tasks) / len(tasks) for seed in complete]
        print(f"{label:>22} over seeds {','.join(map(str, complete))}: "
              f"{sum(solved) / len(solved):.1f}/{len(tasks)} solved (min {min(solved)}, max {max(solved)}), "
              f"{sum(calls) / len(calls):.1f} calls")


if __name__ == "__main__":
    main()
