"""Freeze the "hard" code split: LATS-MBPP problems whose greedy program fails its own example.

    python bench/hard_split.py --out bench/results/mbpp-hard-selection-qwen1.5b \
        --write lats_data/lats_mbpp_hard.json

Contract:
  * Candidates: the lats-mbpp problems in file order, each served as the
    mbpp-sanitized problem with the same number and entry point
    (mbpp_234_volume_cube -> Mbpp/234). One without such a twin, or whose
    statement has no example, is skipped.
  * The greedy program is what method cot answers (one setup call for the
    model's asserts, one program) with the embedded 1.5B model in reward mode
    none. `lats bench --resume` runs it in --out, --chunk problems at a time,
    until --want problems fail or the candidates run out (--select-only runs
    nothing and uses what --out holds).
  * A problem is hard when the greedy step fails one of the statement's
    examples: no program or an invalid step; or a step reward below 1 whose
    test report does not list the example among the passed tests (the
    statement's examples come first among the tests, the model's asserts
    after them; a failing model assert alone does not count). The step is read
    from the planner's run store in --out (reward, invalid flag, test report);
    the hidden-test verdict (`success`) is never read.
  * The first --want hard problems in lats-mbpp order are written to --write,
    with the criterion, the commands, the commit that ran and the date; a
    summary (scanned, mapped, failing, chosen) is printed.

Each bench invocation is logged in --out (hard_split-commands.jsonl: the commit
of this code, the start, the CPUs, the command). On a shared 2-core machine,
run it pinned to one CPU (taskset -c 1): the local model then uses one thread
and runs about ten times faster than two threads contending with other jobs
(the greedy programs are the same).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import re
import subprocess
import sys
from pathlib import Path

MODEL = "qwen2.5-coder-1.5b"
SPLIT = "lats-mbpp-hard"
COMMANDS_NAME = "hard_split-commands.jsonl"   # each bench invocation: commit, start, command
_LATS_ID = re.compile(r"mbpp_(\d+)_")


def candidates() -> tuple[list[dict], int]:
    """The lats-mbpp problems in file order as {lats_id, task_id, examples}, and how many
    lats-mbpp problems there are; the examples are the code runner's own reading."""
    from env_servers.coderunner.config import DEFAULT_INTERNAL_TESTS
    from env_servers.coderunner.internal_tests import docstring_examples
    from env_servers.coderunner.tasks import TaskSet

    tasks = TaskSet()
    sanitized = {p.task_id: p for p in tasks.problems("mbpp-sanitized")}
    lats = tasks.problems("lats-mbpp")
    found = []
    for problem in lats:
        twin = sanitized.get(f"Mbpp/{_LATS_ID.match(problem.task_id).group(1)}")
        if twin is None or twin.entry_point != problem.entry_point:
            continue
        found.append({"lats_id": problem.task_id, "task_id": twin.task_id,
                      "examples": docstring_examples(twin.prompt, twin.entry_point,
                                                     DEFAULT_INTERNAL_TESTS)})
    return found, len(lats)


def passed_tests(observation: str) -> set[str]:
    """The tests a code-runner test report lists under "Tested passed:"."""
    if "Tested passed:\n" not in observation:
        return set()
    section = observation.split("Tested passed:\n", 1)[1].split("\nTests failed:", 1)[0]
    return {line.strip() for line in section.splitlines() if line.strip()}


def fails_examples(step: dict) -> bool:
    """Whether a greedy step {examples, reward, invalid_action, observation} (None fields
    when there was no program step) fails one of the statement's examples."""
    if step.get("reward") is None or step.get("invalid_action"):
        return True
    if step["reward"] >= 1.0:
        return False
    passed = passed_tests(step.get("observation") or "")
    return any(example not in passed for example in step["examples"])


def select(steps: list[dict], want: int) -> tuple[list[str], list[str]]:
    """(every failing task id, the first `want` of them), in the order of `steps`;
    steps without examples are skipped. Reads examples, reward, invalid_action and
    observation only."""
    failing = [step["task_id"] for step in steps if step["examples"] and fails_examples(step)]
    return failing, failing[:want]


def greedy_steps(out: Path) -> dict[str, dict]:
    """task id -> the cot run's program step in --out (reward None when it has none)."""
    records = {}
    path = out / "results.jsonl"
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line) if line.strip() else {}
            if record.get("label") == "cot" and record.get("status") != "error":
                records[record["task_id"]] = record      # a later record replaces one
    if not records:
        return {}
    return asyncio.run(_read_steps(out / "planner-runs.sqlite3", records))


async def _read_steps(store_path: Path, records: dict[str, dict]) -> dict[str, dict]:
    from planner.runs import open_run_store

    store = open_run_store(str(store_path))
    await store.open()
    steps = {}
    try:
        for task_id, record in records.items():
            run = await store.get(record["run_id"])
            if run is None:
                continue
            program = [node for node in run.nodes if node.depth == 1]
            node = program[0] if program else None
            steps[task_id] = {
                "task_id": task_id,
                "reward": node.reward if node else None,
                "invalid_action": node.invalid_action if node else False,
                "observation": node.observation if node else "",
            }
    finally:
        await store.close()
    return steps


def bench_command(out: Path, task_ids: list[str]) -> list[str]:
    tasks = [arg for task in task_ids for arg in ("--task", task)]
    return ["lats", "bench", "--start-services", "--model", MODEL, "--env-name", "coderunner",
            "--env-arg=--reward-mode=none", *tasks, "-m", "cot", "--max-calls", "2",
            "--concurrency", "1", "--out", str(out), "--resume", "--retry-errors"]


def commit_of_this_code() -> str:
    here = Path(__file__).resolve().parent
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(here), *args], capture_output=True,
                              text=True, check=False).stdout.strip()
    commit = git("rev-parse", "HEAD") or "unknown"
    return commit + ("+uncommitted-changes" if git("status", "--porcelain", "--untracked-files=no")
                     else "")


def frozen_split(args, chosen: list[str], runs: list[dict], **counts: int) -> dict:
    """The frozen file: the chosen ids with the criterion and how they were computed."""
    commits = sorted({run["commit"] for run in runs})
    return {
        "split": SPLIT,
        "source": "lats-mbpp problems served as their mbpp-sanitized statements",
        "criterion": ("the first problems, in lats-mbpp file order, whose greedy program "
                      "(method cot: one setup call for asserts, one program) fails an example "
                      "of its own statement, read from the step's reward and test report in "
                      "the run store (the statement's examples run first, the model's asserts "
                      "after; a failing model assert alone does not count); problems whose "
                      "statement has no example are skipped; the hidden-test verdict is not "
                      "used"),
        "model": f"{MODEL} (embedded, Q4_K_M)",
        "mode": "none",
        "command": (f"python bench/hard_split.py --out {args.out} --write {args.write} "
                    f"--want {args.want} --chunk {args.chunk}"),
        "bench_commands": [run["command"] for run in runs],
        "records": str(args.out / "results.jsonl"),
        "scanned": counts["scanned"],
        "mapped": counts["mapped"],
        "failing": counts["failing"],
        "last_chosen_at": counts["position"],
        "commit": commits[0] if len(commits) == 1 else commits,
        "cpus": sorted({run["cpus"] for run in runs}),
        "date": f"{runs[0]['started'][:10]} to {_now()[:10]}" if runs else _now()[:10],
        "example_note": ("an mbpp-sanitized statement shows one example, the first of MBPP's "
                         "hidden tests (the standard MBPP prompt); the hidden tests are the "
                         "whole test_list, so passing the example is part of passing them"),
        "task_ids": chosen,
    }


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="the bench directory")
    parser.add_argument("--write", type=Path, help="the frozen split file to write")
    parser.add_argument("--want", type=int, default=40, help="problems to choose")
    parser.add_argument("--chunk", type=int, default=20, help="problems per bench invocation")
    parser.add_argument("--select-only", action="store_true", help="run nothing")
    args = parser.parse_args()

    found, total = candidates()
    usable = [c for c in found if c["examples"]]
    log = args.out / COMMANDS_NAME
    while True:
        steps = greedy_steps(args.out)
        scanned = 0
        while scanned < len(usable) and usable[scanned]["task_id"] in steps:
            scanned += 1
        judged = [dict(c, **steps[c["task_id"]]) for c in usable[:scanned]]
        failing, chosen = select(judged, args.want)
        print(f"scanned {scanned}, failing {len(failing)}", flush=True)
        if len(chosen) >= args.want or scanned == len(usable) or args.select_only:
            break
        todo = [c["task_id"] for c in usable[scanned:] if c["task_id"] not in steps][:args.chunk]
        command = bench_command(args.out, todo)
        args.out.mkdir(parents=True, exist_ok=True)
        with log.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"commit": commit_of_this_code(), "started": _now(),
                                     "cpus": len(os.sched_getaffinity(0)),
                                     "command": " ".join(command)}) + "\n")
        subprocess.run([sys.executable, "-m", "lats", *command[1:]], check=True)
        missing = [task for task in todo if task not in greedy_steps(args.out)]
        if missing:
            sys.exit(f"the bench left {', '.join(missing)} without a greedy step; see {args.out}")

    print(f"lats-mbpp {total}, mapped {len(found)} (with examples {len(usable)}), "
          f"scanned {scanned}, failing {len(failing)}, chosen {len(chosen)}")
    print("chosen: " + " ".join(chosen))
    if args.write:
        runs = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()
                if line.strip()] if log.exists() else []
        position = [c["task_id"] for c in usable].index(chosen[-1]) + 1 if chosen else 0
        frozen = frozen_split(args, chosen, runs, scanned=scanned, mapped=len(found),
                              failing=len(failing), position=position)
        args.write.write_text(json.dumps(frozen, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.write}")


if __name__ == "__main__":
    main()
