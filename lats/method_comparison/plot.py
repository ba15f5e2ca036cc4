"""Success vs k, like the LATS paper's Figure 3, as a PNG.

One line per variant (its label and everything asked for but k, such as the
budget); a variant run at a single k (e.g. a method whose k is fixed) is a
marker with a dotted reference line across the plot. The points come from:
  * runs at several k (a k sweep): the success rate of each k; or
  * one run at k = K of an "anytime" method (planner.methods.registry: k only
    stops its loop, so the run at k = j is the run at K cut at iteration j):
    the share of tasks solved within j iterations, for j = 1..K. Not in
    honest mode, where a search does not stop at a success.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from planner.methods import METHODS

Curve = list[tuple[int, float]]
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
STYLES = ("-", "--", "-.")


def _line_key(record: dict) -> tuple:
    """The variant and everything asked for except k."""
    requested = {k: v for k, v in record.get("requested", {}).items() if k != "iterations"}
    return (record["label"], json.dumps(requested, sort_keys=True))


def _line_name(runs: list[dict], many_models: bool) -> str:
    head = runs[0]
    name = head["label"]
    if many_models:
        name += f" [{', '.join(sorted({r['model'] for r in runs if r.get('model')}))}]"
    if head.get("max_calls"):
        name += f" ({head['max_calls']} calls)"
    elif head.get("max_tokens"):
        name += f" ({head['max_tokens']} tokens)"
    return name


def _k(record: dict) -> int:
    return record.get("requested", {}).get("iterations") or record.get("k") or 0


def success_curves(records: Iterable[dict]) -> dict[tuple, Curve]:
    """line key -> [(k, success rate)], k ascending (see the module docstring)."""
    lines: dict[tuple, dict[int, list[dict]]] = {}
    for record in records:
        lines.setdefault(_line_key(record), {}).setdefault(_k(record), []).append(record)
    curves: dict[tuple, Curve] = {}
    for key, by_k in lines.items():
        if len(by_k) > 1:
            curves[key] = [(k, sum(r["success"] for r in rs) / len(rs))
                           for k, rs in sorted(by_k.items())]
            continue
        (k, runs), = by_k.items()
        spec = METHODS.get(runs[0].get("method", ""))
        honest = any(r.get("reward_mode") == "honest" for r in runs)
        if spec is not None and spec.anytime and not honest and k > 1:
            curves[key] = [(j, sum(1 for r in runs if r["success"] and r["iterations"] <= j)
                            / len(runs)) for j in range(1, k + 1)]
        else:
            curves[key] = [(k, sum(r["success"] for r in runs) / len(runs))]
    return curves


def plot_success_vs_k(records: Iterable[dict], path: str | Path, title: str = "") -> Path:
    """Draws the curves to `path` (PNG) and returns it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    records = list(records)
    curves = success_curves(records)
    runs_of: dict[tuple, list[dict]] = {}
    for record in records:
        runs_of.setdefault(_line_key(record), []).append(record)
    models = ", ".join(sorted({r["model"] for r in records if r.get("model")})) or "?"
    modes = ", ".join(sorted({r["reward_mode"] for r in records if r.get("reward_mode")})) or "?"
    many_models = "," in models
    figure, axes = plt.subplots(figsize=(7.5, 4.8), dpi=120)
    all_ks = [k for points in curves.values() for k, _ in points]
    span = (min(all_ks), max(all_ks))
    for i, (key, points) in enumerate(curves.items()):
        ks, rates = zip(*points)
        style = dict(marker=MARKERS[i % len(MARKERS)], color=f"C{i % 10}",
                     label=_line_name(runs_of[key], many_models))
        if len(points) > 1:
            axes.plot(ks, rates, linestyle=STYLES[i % len(STYLES)], linewidth=1.8,
                      markersize=5, **style)
        else:   # one k (e.g. a method with k fixed): a reference line across the plot
            axes.plot(ks, rates, linestyle="none", markersize=7, **style)
            axes.hlines(rates[0], *span, colors=style["color"], linestyles=":", linewidth=1.2)
    axes.set_xlabel("k (iterations / trajectories / trials)")
    axes.set_ylabel("success rate")
    axes.set_ylim(-0.03, 1.03)
    axes.grid(True, alpha=0.3)
    axes.xaxis.get_major_locator().set_params(integer=True)
    tasks = len({r["task_id"] for r in records})
    plural = "s" if tasks != 1 else ""
    axes.set_title(title or f"Success vs k — {tasks} task{plural}; model {models}; mode {modes}",
                   fontsize=10)
    axes.legend(fontsize=8, loc="best")
    figure.tight_layout()
    path = Path(path)
    figure.savefig(path)
    plt.close(figure)
    return path
