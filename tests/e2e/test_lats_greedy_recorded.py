"""The embedded 0.5B model, replayed: on HumanEval_34 (unique) the greedy program
passes the task's examples, and LATS returns that very program, the one CoT
returns: at CoT's cost with the greedy gate (its default), and at the cost of
its root expansion without it, where the samples agree with it.

recordings/humaneval_34_greedy_qwen0.5b.jsonl holds the model's exchanges,
recorded (100 s on one core) by
    lats bench --start-services --backend local --model qwen2.5-coder-0.5b \
        --gateway-arg=--record=FILE --env-name coderunner --env-arg=--reward-mode=none \
        --task HumanEval_34_unique -m cot -m lats -m lats:gate=off --max-calls 20 \
        --concurrency 1 --out DIR
A change to the prompt pack or to the requests LATS makes invalidates it (the
replay then fails on the first unrecorded request).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from lats.method_comparison.store import BenchStore

RECORDING = Path(__file__).parent / "recordings" / "humaneval_34_greedy_qwen0.5b.jsonl"


def test_lats_returns_the_greedy_program_when_it_passes_the_examples(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "lats", "--log-level", "WARNING", "bench", "--start-services",
         "--backend", "replay", f"--gateway-arg=--replay={RECORDING}",
         "--env-name", "coderunner", "--env-arg=--reward-mode=none",
         "--task", "HumanEval_34_unique", "-m", "cot", "-m", "lats", "-m", "lats:gate=off", "--max-calls", "20",
         "--concurrency", "1", "--out", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    store = BenchStore(tmp_path / "out" / "bench.sqlite3")
    records = {r["label"]: r for r in store.records()}
    store.close()
    cot, lats, ungated = records["cot"], records["lats"], records["lats:gate=off"]
    for run in (lats, ungated):
        assert cot["success"] and run["success"]
        assert run["greedy_node_id"] == "0.0" and run["answer_node_id"] == "0.0"
        assert run["actions"][-1] == cot["actions"][-1], "the very program CoT returns"
        assert "greedy attempt among them" in run["answer_reason"]
    assert lats["calls"] == cot["calls"] == 2, "setup and the greedy attempt: no sample drawn"
    assert ungated["calls"] == 3, "setup, the greedy attempt, the other n - 1 samples"
