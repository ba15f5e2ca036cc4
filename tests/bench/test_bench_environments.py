"""`lats bench --start-services` on the other environments that have landed:
programming (human-eval samples) and HotPotQA (EM / F1 columns)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lats.method_comparison.store import BenchStore

PROGRAM = ("```python\nfrom typing import List\n\n"
           "def has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
           "    return any(abs(a - b) < threshold\n"
           "               for i, a in enumerate(numbers) for b in numbers[i + 1:])\n```\n"
           "Thus the correctness score is 7")


def bench(tmp_path: Path, script: dict, env: dict, *args: str) -> subprocess.CompletedProcess:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    done = subprocess.run(
        [sys.executable, "-m", "lats", "--log-level", "WARNING", "bench", "--start-services",
         "--backend", "scripted", f"--gateway-arg=--script={path}", "--out",
         str(tmp_path / "out"), *args],
        capture_output=True, text=True, timeout=180, env={**os.environ, **env})
    assert done.returncode == 0, done.stderr
    return done


def test_a_programming_bench_writes_human_eval_samples_per_variant(tmp_path):
    pytest.importorskip("env_servers.coderunner.samples")
    env = {"LATS_CODERUNNER_SANDBOX": "process", "LATS_CODERUNNER_ALLOW_INSECURE_SANDBOX": "1"}
    bench(tmp_path, {"rules": [], "default": PROGRAM}, env, "--env-name", "coderunner",
          "--task", "HumanEval/0", "--task", "HumanEval/1", "-m", "reflexion", "-m", "cot",
          "-k", "2")
    out = tmp_path / "out"
    for name in ("samples-reflexion-k2.jsonl", "samples-cot-k1.jsonl"):
        lines = [json.loads(line) for line in (out / name).read_text().splitlines()]
        assert sorted(line["task_id"] for line in lines) == ["HumanEval/0", "HumanEval/1"]
        assert all("def has_close_elements" in line["completion"] for line in lines)
    store = BenchStore(out / "bench.sqlite3")
    solved = {(r["task_id"], r["label"]): r["success"] for r in store.records()}
    store.close()
    assert solved[("HumanEval/0", "reflexion")] and not solved[("HumanEval/1", "reflexion")]


def test_a_question_answering_bench_reports_em_and_f1(tmp_path):
    pytest.importorskip("env_servers.wiki.domain")
    env = {"LATS_HOTPOTQA_REWARD_MODE": "oracle",
           "LATS_WIKI_CACHE_DIR": str(tmp_path / "wiki"),
           "LATS_WIKI_INDEX": str(tmp_path / "wiki" / "index.sqlite3")}
    script = {"rules": [], "default": "Thought: Both bands are American.\nAction 1: Finish[yes]"}
    done = bench(tmp_path, script, env, "--env-name", "hotpotqa", "--task", "hotpotqa/9",
                 "-m", "react", "-m", "reflexion", "-k", "2")
    summary = (tmp_path / "out" / "summary.md").read_text()
    header = summary.splitlines()[2]
    assert "| em |" in header and "| f1 |" in header and "| oracle |" in summary
    assert "em" in done.stdout
