"""`lats bench` end to end: real services, the command as a subprocess.

Covers the stored records and their exports, the summary's figures against
the stored per-task rows, resuming a bench killed midway (SIGKILL) without
redoing any finished task, retrying errors, and --start-services.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from statistics import fmean

import pytest

from lats.method_comparison.store import BenchStore


def bench_command(services, out: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "lats", "--log-level", "WARNING", "bench",
            "--planner", services["planner"].address, "--env", services["env"].address,
            "--out", str(out), *args]


def run_bench(services, out: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(bench_command(services, out, *args), capture_output=True, text=True,
                          timeout=120)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def stored(out: Path) -> list[dict]:
    store = BenchStore(out / "bench.sqlite3")
    try:
        return store.records()
    finally:
        store.close()


def markdown_rows(out: Path) -> list[dict[str, str]]:
    lines = [line for line in (out / "summary.md").read_text().splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    return [dict(zip(header, (cell.strip() for cell in line.strip("|").split("|"))))
            for line in lines[2:]]


@pytest.fixture(scope="module")
def compared(services, tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "cmp"
    done = run_bench(services, out, "--task", "game24/900", "--task", "game24/901",
                     "-m", "lats", "-m", "reflexion", "-m", "react_bok", "-m", "cot",
                     "-k", "1,3", "-n", "2", "-d", "4", "--max-calls", "40")
    return out, done


def test_every_job_is_stored_once_and_exported(compared):
    out, done = compared
    records = stored(out)
    # 2 tasks x (lats, reflexion, react_bok at k = 1 and 3, cot once: its k is fixed)
    assert len(records) == 2 * (3 * 2 + 1) == len({r["job_key"] for r in records})
    exported = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert exported == records
    assert all(r["status"] in ("solved", "failed") and r["max_calls"] == 40 for r in records)
    assert all(r["calls"] <= 40 and r["model"].startswith("scripted") for r in records)
    by = {(r["task_id"], r["label"], r["k"]): r for r in records}
    assert by[("game24/900", "reflexion", 3)]["success"] is True
    assert by[("game24/900", "reflexion", 1)]["success"] is False
    assert "samples" not in " ".join(p.name for p in out.iterdir())   # not a programming env


def test_the_summary_figures_match_the_stored_rows(compared):
    out, done = compared
    records = stored(out)
    rows = markdown_rows(out)
    assert len(rows) == 7
    for row in rows:
        n, k, d = row["n/k/d"].split("/")
        mine = [r for r in records if r["label"] == row["method"] and r["k"] == int(k)]
        assert len(mine) == int(row["tasks"]) == 2
        won = [r for r in mine if r["success"]]
        share, count = row["success"].split(" ", 1)   # e.g. "0.50 (1/2)"
        assert float(share) == pytest.approx(len(won) / len(mine), abs=0.005)
        assert count == f"({len(won)}/{len(mine)})"
        assert float(row["score"]) == pytest.approx(fmean(r["score"] for r in mine), abs=0.005)
        assert float(row["solved"]) == pytest.approx(
            fmean(r["metrics"]["solved"] for r in mine), abs=0.005)
        assert float(row["calls"]) == pytest.approx(fmean(r["calls"] for r in mine), abs=0.05)
        assert float(row["prompt tok"]) == pytest.approx(
            fmean(r["prompt_tokens"] for r in mine), abs=0.5)
        assert float(row["compl tok"]) == pytest.approx(
            fmean(r["completion_tokens"] for r in mine), abs=0.5)
        assert float(row["expanded"]) == pytest.approx(
            fmean(r["nodes_expanded"] for r in mine), abs=0.05)
        if won:
            assert float(row["exp@success"]) == pytest.approx(
                fmean(r["nodes_expanded"] for r in won), abs=0.05)
        else:
            assert row["exp@success"] == "-"
        assert float(row["wall s"]) == pytest.approx(fmean(r["wall_seconds"] for r in mine),
                                                     abs=0.05)
        assert (row["budget"], row["mode"], row["errors"]) == ("40 calls", "none", "0")
        assert row["model"] == mine[0]["model"] and int(n) == mine[0]["n"]
    assert "reflexion" in done.stdout and "exp@success" in done.stdout   # printed too


def test_the_plot_is_written(compared):
    out, _ = compared
    data = (out / "success_vs_k.png").read_bytes()
    assert data.startswith(b"\x89PNG") and len(data) > 10_000


def test_an_existing_bench_is_only_continued_with_resume(services, compared):
    out, _ = compared
    again = run_bench(services, out, "--task", "game24/900", "-m", "lats", check=False)
    assert again.returncode != 0 and "pass --resume" in again.stderr
    report = subprocess.run([sys.executable, "-m", "lats", "bench", "--out", str(out),
                             "--report-only"], capture_output=True, text=True, timeout=60)
    assert report.returncode == 0 and "react_bok" in report.stdout


def planner_runs_per_task(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as connection:
        return dict(connection.execute("SELECT task_id, COUNT(*) FROM runs GROUP BY task_id"))


def test_a_killed_bench_resumes_without_redoing_finished_tasks(services, tmp_path):
    out = tmp_path / "killed"
    args = ("--split", "test", "--slice", "10:18", "-m", "lats", "-k", "20", "-n", "3",
            "-d", "4", "--concurrency", "1")
    process = subprocess.Popen(bench_command(services, out, *args), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if (out / "bench.sqlite3").exists() and len(stored(out)) >= 2:
                break
            time.sleep(0.02)
        os.killpg(process.pid, signal.SIGKILL)
    finally:
        process.wait(10)
    before = stored(out)
    assert 2 <= len(before) < 8, "the kill must land midway"
    assert process.returncode == -signal.SIGKILL

    resumed = run_bench(services, out, *args, "--resume")
    assert f"{len(before)} already done, {8 - len(before)} to run" in resumed.stderr
    after = {r["job_key"]: r for r in stored(out)}
    assert len(after) == 8 and {r["task_id"] for r in after.values()} == {
        f"game24/{row}" for row in range(910, 918)}
    for record in before:                      # kept as they were
        assert after[record["job_key"]] == record and record["session"] == 1
    sessions = sorted(r["session"] for r in after.values())
    assert sessions == [1] * len(before) + [2] * (8 - len(before))
    runs = planner_runs_per_task(services["planner_db"])
    assert all(runs[r["task_id"]] == 1 for r in before), "a finished task was searched again"


def test_errors_are_kept_on_resume_unless_retried(services, tmp_path):
    out = tmp_path / "errors"
    args = ("--task", "game24/99999", "--task", "game24/900", "-m", "react")
    run_bench(services, out, *args)
    first = {r["task_id"]: r for r in stored(out)}
    unknown = first["game24/99999"]
    assert unknown["status"] == "error" and "NOT_FOUND" in unknown["error"]
    assert first["game24/900"]["status"] == "failed"

    run_bench(services, out, *args, "--resume")
    assert {r["task_id"]: r["session"] for r in stored(out)} == {"game24/99999": 1, "game24/900": 1}
    run_bench(services, out, *args, "--resume", "--retry-errors")
    assert {r["task_id"]: r["session"] for r in stored(out)} == {"game24/99999": 3, "game24/900": 1}
    assert markdown_rows(out)[0]["errors"] == "1"


def test_bad_method_specs_are_usage_errors(services, tmp_path):
    done = run_bench(services, tmp_path / "bad", "--task", "game24/900", "-m", "lats:alpha=2",
                     check=False)
    assert done.returncode == 2 and "KEY in n, k, d" in done.stderr


def test_start_services_runs_its_own_three_processes(services, tmp_path):
    out = tmp_path / "own"
    done = subprocess.run(
        [sys.executable, "-m", "lats", "--log-level", "WARNING", "bench", "--start-services",
         "--env-name", "game24", "--backend", "scripted",
         f"--gateway-arg=--script={services['script']}", "--task", "game24/900",
         "-m", "reflexion", "-k", "3", "-d", "4", "--out", str(out), "--ui"],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    (record,) = stored(out)
    assert record["success"] and record["label"] == "reflexion"
    assert (out / "planner-runs.sqlite3").exists()
    assert "watch the searches: http://127.0.0.1:" in done.stderr   # the run viewer ran too
