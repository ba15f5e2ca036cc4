"""The summary table, checked figure by figure against the records."""

import pytest

from lats.method_comparison.summary import summarize, table, to_markdown

from tests.bench.helpers import failed_job, record


def test_one_row_per_variant_and_budget_with_means_over_its_tasks():
    records = [
        record("t1", "lats", k=5, solved=True, calls=10, prompt=100, completion=20, expanded=4,
               wall=1.0),
        record("t2", "lats", k=5, solved=False, calls=30, prompt=300, completion=60, expanded=12,
               wall=3.0),
        record("t3", "lats", k=5, solved=True, calls=20, prompt=200, completion=40, expanded=8,
               wall=2.0),
        record("t1", "reflexion", k=5, solved=False, calls=6),
        record("t1", "lats", k=10, solved=True, calls=10),
    ]
    rows = summarize(records)
    assert [(r.label, r.k) for r in rows] == [("lats", 5), ("lats", 10), ("reflexion", 5)]
    lats = rows[0]
    assert lats.tasks == 3 and lats.success == pytest.approx(2 / 3)
    assert lats.calls == 20 and lats.prompt_tokens == 200 and lats.completion_tokens == 40
    assert lats.expanded == 8 and lats.expanded_on_success == 6     # (4 + 8) / 2
    assert lats.wall_seconds == 2.0 and lats.errors == 0
    assert lats.score == pytest.approx((1 + 0.25 + 1) / 3)
    assert lats.metrics == {"solved": pytest.approx(2 / 3)}
    assert (lats.mode, lats.model, lats.budget) == ("none", "local:qwen", "none")
    assert (lats.n, lats.d) == (2, 4)
    assert rows[2].expanded_on_success is None


def test_errors_count_as_failures_and_are_shown():
    rows = summarize([record("t1", solved=True, wall=2.0), failed_job("t2")])
    assert rows[0].tasks == 2 and rows[0].success == 0.5 and rows[0].errors == 1
    assert rows[0].wall_seconds == 2.0          # the mean over runs that ran


def test_every_score_metric_the_environment_returns_becomes_a_column():
    rows = summarize([record("t1", metrics={"em": 1.0, "f1": 0.8}),
                      record("t2", metrics={"em": 0.0, "f1": 0.4})])
    header, cells = table(rows)
    assert header[header.index("score") + 1: header.index("calls")] == ["em", "f1"]
    assert cells[0][header.index("em")] == "0.50" and cells[0][header.index("f1")] == "0.60"


def test_mode_model_and_budget_are_in_every_row():
    records = [record("t1", max_calls=30, mode="oracle"), record("t1", max_calls=60, mode="oracle")]
    header, cells = table(summarize(records))
    budget, mode, model = (header.index(name) for name in ("budget", "mode", "model"))
    assert [(c[budget], c[mode], c[model]) for c in cells] == [
        ("30 calls", "oracle", "local:qwen"), ("60 calls", "oracle", "local:qwen")]
    markdown = to_markdown(summarize(records))
    assert markdown.count("| lats | 2/5/4 | ") == 2 and "Environment: game24@1.0.0" in markdown


def test_rows_are_paired_per_task_against_cot_and_show_tokens_per_solved_task():
    records = [
        record("t1", "cot", solved=True), record("t2", "cot", solved=False),
        record("t3", "cot", solved=True),
        record("t1", "lats", solved=True, prompt=100, completion=50),
        record("t2", "lats", solved=True, prompt=300, completion=50),
        record("t3", "lats", solved=False, prompt=400, completion=100),
        record("t4", "lats", solved=True, prompt=0, completion=0),    # cot never ran t4
    ]
    rows = {row.label: row for row in summarize(records)}
    assert (rows["lats"].wins, rows["lats"].losses) == (1, 1)
    assert rows["cot"].wins is None
    assert rows["lats"].tokens_per_success == pytest.approx(1000 / 3)
    header, cells = table(list(rows.values()))
    lats_cells = cells[[r.label for r in rows.values()].index("lats")]
    assert lats_cells[header.index("vs cot")] == "+1/-1"
    assert lats_cells[header.index("success")] == "0.75 (3/4)"


def test_the_printed_line_tells_the_searchs_outcome_from_scores():
    """A search can end `solved` on its visible checks and still fail Score's hidden tests."""
    from lats.method_comparison.cli import record_line

    passed = record("HumanEval/1", "lats", k=8, solved=True, calls=3, wall=7.25)
    assert record_line(passed) == "HumanEval/1 lats k=8: search solved, Score passed; 3 calls, 7.2s"
    hidden_fail = dict(passed, success=False)
    assert "search solved, Score FAILED" in record_line(hidden_fail)
    unscored = record("t9", "lats", solved=False, scored=False)
    assert "search failed, not scored" in record_line(unscored)
