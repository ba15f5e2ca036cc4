"""The table `lats runs list` prints: one row per run, every figure with its
method, model and budget beside it."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from lats_pb import planner_pb2 as pb
from lats_runtime.run_status import RunStatus, from_wire

from lats.run_inspection.text_tree import STATUS_STYLES


def _budget(config: pb.SearchConfig) -> str:
    budget = config.budget
    parts = [f"n={config.n_samples} k={config.iterations}"]
    if budget.max_calls:
        parts.append(f"≤{budget.max_calls} calls")
    if budget.max_total_tokens:
        parts.append(f"≤{budget.max_total_tokens} tok")
    return " ".join(parts)


def runs_table(runs: list[pb.Run]) -> Table:
    table = Table(show_lines=False, header_style="bold")
    for name, justify in (("run", "left"), ("created", "left"), ("status", "left"),
                          ("environment", "left"), ("task", "left"), ("method", "left"),
                          ("model", "left"), ("budget", "left"), ("iters", "right"),
                          ("nodes", "right"), ("score", "right"), ("calls", "right"),
                          ("tokens", "right"), ("wall s", "right")):
        table.add_column(name, justify=justify, no_wrap=name in ("run", "created"))
    for run in runs:
        r = run.result
        status = from_wire(run.status)
        finished = status is not RunStatus.RUNNING
        table.add_row(
            Text(run.run_id), run.created_at.replace("T", " ")[:19],
            Text(status, style=STATUS_STYLES.get(status, "bold")),
            Text(r.environment), Text(run.task_id or r.task_id),
            Text(r.method or r.config.method or "lats"), Text(r.model or "-"), _budget(r.config),
            str(r.iterations) if finished else "…", str(r.nodes) if finished else "…",
            f"{r.score.score:g}" if r.scored else "-",
            str(r.usage.calls) if finished else "…",
            str(r.usage.prompt_tokens + r.usage.completion_tokens) if finished else "…",
            f"{r.wall_seconds:.1f}" if finished else "…",
        )
    return table
