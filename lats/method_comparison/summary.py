"""The per-variant summary table, computed from stored records only.

Records are grouped by what was asked for: the variant label and the request's
config (k, n, d, budget ...). Each row also names the environment, model and
reward mode its runs reported and the effective n / k / d. Per group:

  tasks            records in the group (errors included)
  success          share of tasks whose answer the environment's Score accepted
  score            mean Score.score; plus the mean of every Score metric the
                   environment returns (em, f1, pass rate, WebShop score ...)
  calls, prompt / completion tokens   mean model usage per task
  expanded         mean nodes expanded per task
  expanded@success mean nodes expanded over the solved tasks (LATS paper, Table 10)
  tok/solved       all the group's tokens (prompt + completion) over its solved tasks
  vs cot           paired per task against the `cot` row of the same environment
                   and model: +tasks this row solved and cot did not, -the reverse
  wall s           mean search wall time per task
  errors           tasks that ended in an error
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from statistics import fmean

from lats_runtime.run_status import RunStatus


@dataclass
class SummaryRow:
    environment: str
    label: str
    model: str
    mode: str
    n: int
    k: int
    d: int
    max_calls: int
    max_tokens: int
    tasks: int = 0
    success: float = 0.0
    score: float | None = None
    metrics: dict[str, float] = field(default_factory=dict)
    calls: float = 0.0
    prompt_tokens: float = 0.0
    completion_tokens: float = 0.0
    cached_share: float | None = None    # of the prompt tokens, served from the prompt cache
    expanded: float = 0.0
    expanded_on_success: float | None = None
    wall_seconds: float = 0.0
    errors: int = 0
    tokens_per_success: float | None = None
    wins: int | None = None          # paired against the reference (cot): solved here only
    losses: int | None = None        # solved by the reference only

    @property
    def budget(self) -> str:
        parts = []
        if self.max_calls:
            parts.append(f"{self.max_calls} calls")
        if self.max_tokens:
            parts.append(f"{self.max_tokens} tokens")
        return " / ".join(parts) or "none"


def group_key(record: dict) -> tuple:
    """What was asked for: the variant label and the request's config (with its
    budget), so a job that errored joins the row of the jobs that ran."""
    return (record["label"], json.dumps(record.get("requested", {}), sort_keys=True))


def _joined(records: Sequence[dict], name: str) -> str:
    """The distinct values of a reported field (several would flag mixed runs)."""
    return ", ".join(sorted({r[name] for r in records if r.get(name)}))


def _mean(values: Sequence[float]) -> float:
    return fmean(values) if values else 0.0


def _first(records: Sequence[dict], name: str) -> int:
    """The effective value from the first record that ran (errors have none)."""
    ran = [r for r in records if r["status"] != RunStatus.ERROR] or list(records)
    return ran[0].get(name) or 0


REFERENCE = "cot"


def paired(members: Sequence[dict], reference: Sequence[dict]) -> tuple[int, int]:
    """(wins, losses) of `members` against `reference` over the tasks both ran."""
    theirs = {r["task_id"]: r["success"] for r in reference}
    both = [r for r in members if r["task_id"] in theirs]
    wins = sum(1 for r in both if r["success"] and not theirs[r["task_id"]])
    losses = sum(1 for r in both if theirs[r["task_id"]] and not r["success"])
    return wins, losses


def summarize(records: Iterable[dict], label_order: Sequence[str] = ()) -> list[SummaryRow]:
    """One row per group: by environment, variants in `label_order` (then in order of
    first appearance), then k and budget."""
    groups: dict[tuple, list[dict]] = {}
    for record in records:
        groups.setdefault(group_key(record), []).append(record)
    references = {(_joined(m, "environment"), _joined(m, "model")): m
                  for m in groups.values() if m[0]["label"] == REFERENCE}
    labels = list(dict.fromkeys([*label_order, *(key[0] for key in groups)]))

    def order(members: list[dict]) -> tuple:
        head = members[0]
        return (_joined(members, "environment"), labels.index(head["label"]),
                head["requested"].get("iterations") or 0, head.get("max_calls", 0),
                head.get("max_tokens", 0))

    rows = []
    for members in sorted(groups.values(), key=order):
        head = members[0]
        ran = [r for r in members if r["status"] != RunStatus.ERROR]
        won = [r for r in members if r["success"]]
        scored = [r for r in members if r.get("scored")]
        metric_names = sorted({name for r in scored for name in r.get("metrics", {})})
        rows.append(SummaryRow(
            environment=_joined(members, "environment"), label=head["label"],
            model=_joined(members, "model"), mode=_joined(members, "reward_mode"),
            n=_first(members, "n"), k=_first(members, "k"), d=_first(members, "d"),
            max_calls=head.get("max_calls", 0), max_tokens=head.get("max_tokens", 0),
            tasks=len(members),
            success=len(won) / len(members),
            score=_mean([r["score"] for r in scored]) if scored else None,
            metrics={name: _mean([r["metrics"].get(name, 0.0) for r in scored])
                     for name in metric_names},
            calls=_mean([r["calls"] for r in members]),
            prompt_tokens=_mean([r["prompt_tokens"] for r in members]),
            completion_tokens=_mean([r["completion_tokens"] for r in members]),
            cached_share=_share(members),
            expanded=_mean([r["nodes_expanded"] for r in members]),
            expanded_on_success=_mean([r["nodes_expanded"] for r in won]) if won else None,
            wall_seconds=_mean([r["wall_seconds"] for r in ran]),
            errors=len(members) - len(ran),
            tokens_per_success=(sum(r["prompt_tokens"] + r["completion_tokens"]
                                    for r in members) / len(won)) if won else None,
        ))
        reference = references.get((rows[-1].environment, rows[-1].model))
        if reference is not None and head["label"] != REFERENCE:
            rows[-1].wins, rows[-1].losses = paired(members, reference)
    return rows


def _share(members: Sequence[dict]) -> float | None:
    """The share of the prompt tokens served from the backend's prompt cache (None
    where no record says: records from before the count was kept)."""
    counted = [r for r in members if "cached_prompt_tokens" in r]
    prompt = sum(r["prompt_tokens"] for r in counted)
    return sum(r["cached_prompt_tokens"] for r in counted) / prompt if prompt else None


def _metric_names(rows: Sequence[SummaryRow]) -> list[str]:
    return sorted({name for row in rows for name in row.metrics})


def table(rows: Sequence[SummaryRow]) -> tuple[list[str], list[list[str]]]:
    """Header and cells of the summary, as text."""
    metrics = _metric_names(rows)
    header = ["method", "n/k/d", "budget", "mode", "model", "tasks", "success", "score",
              *metrics, "calls", "prompt tok", "cached", "compl tok", "tok/solved", "vs cot",
              "expanded", "exp@success", "wall s", "errors"]
    cells = []
    for row in rows:
        cells.append([
            row.label, f"{row.n}/{row.k}/{row.d}", row.budget, row.mode or "?",
            row.model or "?", str(row.tasks),
            f"{row.success:.2f} ({round(row.success * row.tasks)}/{row.tasks})",
            "-" if row.score is None else f"{row.score:.2f}",
            *(f"{row.metrics[m]:.2f}" if m in row.metrics else "-" for m in metrics),
            f"{row.calls:.1f}", f"{row.prompt_tokens:.0f}",
            "-" if row.cached_share is None else f"{row.cached_share:.0%}",
            f"{row.completion_tokens:.0f}",
            "-" if row.tokens_per_success is None else f"{row.tokens_per_success:.0f}",
            "-" if row.wins is None else f"+{row.wins}/-{row.losses}",
            f"{row.expanded:.1f}",
            "-" if row.expanded_on_success is None else f"{row.expanded_on_success:.1f}",
            f"{row.wall_seconds:.1f}", str(row.errors),
        ])
    return header, cells


def to_markdown(rows: Sequence[SummaryRow]) -> str:
    header, cells = table(rows)
    environments = sorted({row.environment for row in rows if row.environment})
    lines = [f"Environment: {', '.join(environments) or '?'}", "",
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(line) + " |" for line in cells]
    return "\n".join(lines) + "\n"


def to_rich(rows: Sequence[SummaryRow]):
    from rich.table import Table

    header, cells = table(rows)
    environments = sorted({row.environment for row in rows if row.environment})
    result = Table(title=f"lats bench: {', '.join(environments) or '?'}")
    for i, name in enumerate(header):
        result.add_column(name, justify="left" if i in (0, 2, 3, 4) else "right",
                          overflow="fold")
    for line in cells:
        result.add_row(*line)
    return result
