"""A bench's answers as the field's own evaluators read them, per variant group
(label, k and budget: one file set per row of the summary):

* programming environments: a human-eval samples file and the problem file of
  the bench's tasks (`samples-GROUP.jsonl`, `problems-GROUP.jsonl`;
  env_servers.coderunner.official), checked by
  `evaluate_functional_correctness SAMPLES --problem_file=PROBLEMS`. That file
  holds the search's answer, one per task: its pass@1 is the search's. Beside
  it, `samples_all-GROUP.jsonl` holds every program the searches sampled, once
  per sample (records' `programs`), so the same evaluator reports pass@1 (the
  share of samples that pass) and pass@10 where every task has 10 or more;
* HotPotQA: predictions in the official script's format and the gold file of
  the bench's questions (`predictions-GROUP.json`, `gold-GROUP.json`;
  env_servers.wiki.predictions), checked by `hotpot_evaluate_v1.py`.

`write_exports` returns what it wrote, with the command that checks each set,
and the reason for any group it could not write.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lats.method_comparison.records import PROGRAMMING_ENVIRONMENTS

PASS_AT = (1, 10, 100)              # the k human-eval's evaluator reports
QUESTION_ANSWERING_ENVIRONMENTS = ("hotpotqa", "hotpotqa-cot")


@dataclass
class Exported:
    paths: list[Path] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)   # groups not written, and why
    notes: list[str] = field(default_factory=list)      # what a written file holds


def environment_name(record: dict) -> str:
    return record["environment"].split("@")[0]


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", text).strip("_")


def group_name(head: dict) -> str:
    """The file-name part of a variant group: label, k and budget."""
    name = f"{_slug(head['label'])}-k{head['k']}"
    name += f"-{head['max_calls']}calls" if head["max_calls"] else ""
    name += f"-{head['max_tokens']}tokens" if head["max_tokens"] else ""
    return name


def _groups(records: Iterable[dict], environments: tuple[str, ...],
            group_key: Callable[[dict], tuple]) -> dict[str, list[dict]]:
    groups: dict[tuple, list[dict]] = {}
    for record in records:
        if environment_name(record) in environments:
            groups.setdefault(group_key(record), []).append(record)
    named: dict[str, list[dict]] = {}
    for members in groups.values():
        name = group_name(members[0])
        if name in named:                 # same label, k and budget; other settings
            name = f"{name}-{len(named)}"
        named[name] = members
    return named


def _problem_source():
    from env_servers.coderunner.tasks import TaskSet

    data = os.environ.get("LATS_CODERUNNER_DATA")
    return TaskSet(Path(data) if data else None).get


def _write_all_samples(exported: Exported, path: Path, problems: Path, members: list[dict],
                       problem_of) -> None:
    """Every program each task's search sampled, once per sample, for pass@k."""
    from env_servers.coderunner import official
    from env_servers.coderunner.samples import program_samples

    per_task = [program_samples(r["task_id"], r["programs"]) for r in members]
    official.write_evaluation_files(path, problems, [s for task in per_task for s in task],
                                    problem_of)
    fewest = min(map(len, per_task))
    reported = [k for k in PASS_AT if k <= fewest]
    exported.paths.append(path)
    exported.commands.append(official.evaluation_command(path, problems))
    exported.notes.append(
        f"{path.name}: every sampled program, at least {fewest} per task: the evaluator "
        f"reports {', '.join(f'pass@{k}' for k in reported)} from it (pass@1 there is the "
        f"share of samples that pass; the search's own pass@1 is {path.name.replace('_all', '')})")


def write_exports(records: list[dict], out: Path,
                  group_key: Callable[[dict], tuple]) -> Exported:
    """Writes every group's evaluator files into `out` (see the module docstring)."""
    exported = Exported()
    programming = _groups(records, PROGRAMMING_ENVIRONMENTS, group_key)
    if programming:
        from env_servers.coderunner import official

        problem_of = _problem_source()
        for name, members in programming.items():
            samples, problems = out / f"samples-{name}.jsonl", out / f"problems-{name}.jsonl"
            answers = [(r["task_id"], r["actions"][-1] if r["actions"] else "")
                       for r in members]
            try:
                official.write_evaluation_files(samples, problems, answers, problem_of)
            except Exception as error:  # noqa: BLE001 - an unknown task skips its group only
                exported.problems.append(f"no human-eval files for {name}: {error}")
                continue
            exported.paths += [samples, problems]
            exported.commands.append(official.evaluation_command(samples, problems))
            if all("programs" in r for r in members):     # records from before: no programs
                _write_all_samples(exported, out / f"samples_all-{name}.jsonl", problems,
                                   members, problem_of)
    answering = _groups(records, QUESTION_ANSWERING_ENVIRONMENTS, group_key)
    if answering:
        from env_servers.wiki import predictions

        for name, members in answering.items():
            predicted, gold = out / f"predictions-{name}.json", out / f"gold-{name}.json"
            try:
                predictions.write_prediction_files(
                    predicted, gold, [(r["task_id"], r["actions"])   # in task order, whatever
                                      for r in sorted(members, key=lambda r: r["task_id"])])
            except KeyError as error:
                exported.problems.append(f"no HotPotQA predictions for {name}: question "
                                         f"{error.args[0]!r} is in no question file here")
                continue
            exported.paths += [predicted, gold]
            exported.commands.append(predictions.evaluation_command(predicted, gold))
    return exported
