"""paired_table: the mean of a Score metric is shown only where every record has it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "paired_table.py"
spec = importlib.util.spec_from_file_location("paired_table", SCRIPT)
paired_table = importlib.util.module_from_spec(spec)
spec.loader.exec_module(paired_table)


def test_the_mean_f1_is_over_every_record_and_absent_when_any_lacks_it():
    records = [{"metrics": {"f1": 1.0, "em": 1.0}}, {"metrics": {"f1": 0.5}}, {"metrics": {"f1": 0.0}}]
    assert paired_table.mean_metric(records, "f1") == 0.5
    assert paired_table.mean_metric(records + [{"metrics": {}}], "f1") is None
    assert paired_table.mean_metric([{"score": 1.0}], "f1") is None
    assert paired_table.mean_metric([], "f1") is None
