"""Preference pairs where Step rewards are partial credit: the code runner.

A program is terminal only when it passes every visible test, so under the
terminal-only rule every known outcome was 1 and code gave no pairs. The code
runner states `partial_credit_rewards` (a Step reward is the share of visible
tests passed); the run records that fact, and the export then labels a node by
the best reward at or below it, terminal or not. A real best_of_n search
(scripted model, the code runner on its process sandbox) samples three strlen
programs at the root: one right (2 of 2 docstring examples), one that returns 0
(1 of 2: `strlen('')`), one that returns -1 (0 of 2).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from lats.cli import main
from planner.runs import open_run_store
from planner.runs.store import RunQuery

pytestmark = pytest.mark.timeout(300)

TASK = "HumanEval_23_strlen"


def _program(body: str) -> str:
    return f"Here it is:\n```python\ndef strlen(string: str) -> int:\n    return {body}\n```"


RIGHT, HALF, NONE = _program("len(string)"), _program("0"), _program("-1")


@pytest.fixture(scope="module")
def bench_out(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("bench")
    # n = 4: the greedy attempt gets responses[0]; the root's 3 samples responses[0..2].
    script = {"rules": [{"name": "strlen", "contains": ["def strlen("],
                         "responses": [HALF, NONE, RIGHT]}], "default": "no program"}
    (out / "script.json").write_text(json.dumps(script))
    env = {**os.environ, "LATS_CODERUNNER_SANDBOX": "process",
           "LATS_CODERUNNER_ALLOW_INSECURE_SANDBOX": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "lats", "--log-level", "WARNING", "bench", "--start-services",
         "--backend", "scripted", f"--gateway-arg=--script={out / 'script.json'}",
         "--env-name", "coderunner", "-m", "best_of_n:gate=off", "-n", "4", "-k", "1",
         "--task", TASK, "--out", str(out / "run")],
        capture_output=True, text=True, timeout=240, env=env)
    assert done.returncode == 0, done.stderr[-4000:]
    return out / "run"


@pytest.fixture(scope="module")
def exported(bench_out, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("trl")
    result = CliRunner().invoke(main, ["runs", "export", "--db",
                                       str(bench_out / "planner-runs.sqlite3"),
                                       "--format", "trl", "-o", str(out)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return out


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_run_records_that_its_rewards_are_partial_credit(bench_out):
    async def read():
        store = open_run_store(str(bench_out / "planner-runs.sqlite3"))
        await store.open()
        try:
            return await store.list_runs(RunQuery())
        finally:
            await store.close()

    runs = asyncio.run(read())
    assert len(runs) == 1 and runs[0].result.partial_credit_rewards


def test_siblings_are_paired_by_the_share_of_visible_tests_they_pass(exported):
    by_text = {row["completion"][0]["content"]: row for row in _rows(exported / "expansions.jsonl")
               if row["node_id"] == "0"}
    assert {text: row["outcome"] for text, row in by_text.items()} == {
        RIGHT: 1.0, HALF: 0.5, NONE: 0.0}
    assert by_text[RIGHT]["terminal"] and not by_text[HALF]["terminal"]

    pairs = _rows(exported / "preferences.jsonl")
    got = sorted((p["chosen"][0]["content"], p["rejected"][0]["content"],
                  p["chosen_reward"], p["rejected_reward"]) for p in pairs)
    assert got == sorted([(RIGHT, HALF, 1.0, 0.5), (RIGHT, NONE, 1.0, 0.0),
                          (HALF, NONE, 0.5, 0.0)])
    assert all(set(p) & {"label", "completion"} == set() for p in pairs)


def test_unpaired_rows_label_only_the_best_sibling(exported):
    rows = _rows(exported / "unpaired.jsonl")
    labels = {row["completion"][0]["content"]: row["label"] for row in rows}
    assert labels == {RIGHT: True, HALF: False, NONE: False}
