"""How usable the model's replies were, per method, from a run store: prints figures.

    python bench/reply_quality.py bench/results/DIR/planner-runs.sqlite3 --env-name hotpotqa

Three kinds of reply, each judged the way the search judged it:
- actions: every step the search took (every non-root node), the samples merged
  into an earlier node as repeats instead (RunResult.repeats_merged: the same
  move, or a move to the same state), and the share of steps the environment
  refused as invalid, with the most common reasons it gave (quoted
  text, bracketed and parenthesised parts and numbers folded, so that reasons of one kind count
  together);
- values: the value calls (RunResult.calls_by_kind) and those whose reply did not
  parse (RunResult.value_parse_failures);
- reflections: how many, how many are distinct, and how many copy the environment's
  own example reflections (a run of COPY_WORDS or more words in common with an
  example reply of its prompt pack), the failure the first real-model try found.
Runs count under their method (RunResult.method): a bench's variants of one
method (`lats:stop=3`, ...) count together. Changes nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import re
from collections import Counter
from dataclasses import dataclass, field

from env_servers.registry import load_domain
from planner.runs import RunQuery, open_run_store
from planner.runs.store import MAX_LIST_LIMIT

COPY_WORDS = 8
_QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|`[^`\n]*`|\[[^\]\n]*\]|\([^)\n]*\)")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_CLAUSE_END = re.compile(r"[.;](?:\s|$)")


@dataclass
class Figures:
    """One method's counts over its runs."""
    runs: int = 0
    steps: int = 0
    invalid: int = 0
    merged: int = 0
    reasons: Counter = field(default_factory=Counter)
    value_calls: int = 0
    value_failures: int = 0
    reflections: list[str] = field(default_factory=list)


def reason(observation: str) -> str:
    """An invalid step's reason, as a class: its first clause, quoted parts and
    numbers folded."""
    folded = _NUMBER.sub("N", _QUOTED.sub("…", observation.strip()))
    end = _CLAUSE_END.search(folded)
    return (folded[:end.start()] if end else folded)[:90]


def word_runs(text: str, size: int) -> set[tuple[str, ...]]:
    """Every run of `size` consecutive words of `text`, lower-cased, punctuation dropped."""
    words = re.findall(r"[a-z0-9$]+", text.lower())
    return {tuple(words[i:i + size]) for i in range(len(words) - size + 1)}


def copies_example(text: str, examples: list[str], size: int = COPY_WORDS) -> bool:
    """Whether `text` shares a run of `size` words with one of the `examples`."""
    return bool(word_runs(text, size) & example_runs(examples, size))


def example_runs(examples: list[str], size: int = COPY_WORDS) -> set[tuple[str, ...]]:
    """Every run of `size` words of any of the `examples`."""
    return set().union(*(word_runs(example, size) for example in examples))


def add_run(figures: Figures, run) -> None:
    """Counts one stored run (a planner Run message) into `figures`."""
    figures.runs += 1
    for node in run.nodes:
        if not node.parent_id:
            continue
        figures.steps += 1
        if node.invalid_action:
            figures.invalid += 1
            figures.reasons[reason(node.observation)] += 1
    figures.merged += run.result.repeats_merged
    figures.value_calls += run.result.calls_by_kind.get("value", 0)
    figures.value_failures += run.result.value_parse_failures
    figures.reflections.extend(note.text for note in run.reflection_notes)


async def measure(location: str) -> dict[str, Figures]:
    """Figures per method (RunResult.method) over every finished run in the store."""
    by_method: dict[str, Figures] = {}
    store = open_run_store(location)
    await store.open()
    try:
        for listed in await store.every_run(RunQuery(limit=MAX_LIST_LIMIT)):
            run = await store.get(listed.run_id)
            if run is not None and run.result.method:
                add_run(by_method.setdefault(run.result.method, Figures()), run)
    finally:
        await store.close()
    return by_method


def share(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "-"


def report(by_method: dict[str, Figures], examples: list[str]) -> list[str]:
    """The printed lines: one table row per method, then each method's top reasons."""
    known = example_runs(examples)
    lines = [f"{'method':<12} {'runs':>5} {'steps':>6} {'merged':>7} {'invalid':>8} {'value calls':>12} "
             f"{'parsed':>7} {'reflections':>12} {'distinct':>9} {'copied':>7}"]
    for method in sorted(by_method):
        f = by_method[method]
        copied = sum(bool(word_runs(text, COPY_WORDS) & known) for text in f.reflections)
        lines.append(
            f"{method:<12} {f.runs:>5} {f.steps:>6} {f.merged:>7} {share(f.invalid, f.steps):>8} "
            f"{f.value_calls:>12} {share(f.value_calls - f.value_failures, f.value_calls):>7} "
            f"{len(f.reflections):>12} {share(len(set(f.reflections)), len(f.reflections)):>9} "
            f"{share(copied, len(f.reflections)):>7}")
    for method in sorted(by_method):
        for text, count in by_method[method].reasons.most_common(3):
            lines.append(f"  {method}: {count} x {text}")
    return lines


def example_replies(env_name: str) -> list[str]:
    """The example reflections of `env_name`'s prompt pack (its reflect turns' replies)."""
    pack = load_domain(env_name).describe().prompt_pack
    return [turn.content for turn in pack.reflect_turns if turn.role == "assistant"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("store", help="the run store: a SQLite file or a postgresql:// URL")
    parser.add_argument("--env-name", required=True,
                        help="the environment whose example reflections count as copied")
    args = parser.parse_args()
    by_method = asyncio.run(measure(args.store))
    if not by_method:
        print("no finished runs in the store")
        return
    print("\n".join(report(by_method, example_replies(args.env_name))))


if __name__ == "__main__":
    main()
