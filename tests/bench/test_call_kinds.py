"""bench/call_kinds.py: calls per task by kind, from bench records."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "call_kinds.py"
spec = importlib.util.spec_from_file_location("call_kinds", SCRIPT)
call_kinds = importlib.util.module_from_spec(spec)
spec.loader.exec_module(call_kinds)


def record(label, seed, kinds, prompt=100, cached=50):
    return {"label": label, "requested": {"seed": seed}, "calls_by_kind": kinds,
            "calls": sum(kinds.values()), "prompt_tokens": prompt, "completion_tokens": 10,
            "cached_prompt_tokens": cached, "wall_seconds": 4.0}


def test_means_per_task_by_kind_and_the_cached_share():
    records = [record("lats", 0, {"act:root": 2, "value": 4}),
               record("lats", 0, {"act:root": 1, "act:deeper": 3, "value": 2, "reflect": 1},
                      cached=0),
               record("react", 0, {"act:root": 1, "act:deeper": 4}),
               {"label": "lats", "requested": {"seed": 0}}]          # before the counts
    table = call_kinds.rows(records, ["react", "lats"])
    assert [(label, seed) for label, seed, _ in table] == [("react", 0), ("lats", 0)]
    lats = table[1][2]
    assert (lats["tasks"], lats["act:root"], lats["act:deeper"], lats["value"],
            lats["reflect"], lats["calls"]) == (2, 1.5, 1.5, 3.0, 0.5, 6.5)
    assert lats["cached"] == 0.25
