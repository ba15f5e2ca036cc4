"""How often are model-written internal tests wrong, and the task's own examples?

For each problem of a code-runner split, asks the embedded model for its
internal tests exactly as a search's setup step does (the environment's prompt
pack, temperature 0, the planner's setup seed), then runs the reference
solution (HumanEval's canonical one) in the sandbox against those tests and
against the examples in the task's own docstring. A test the reference
solution fails is a wrong test: a search that trusts it is steered away from
right programs. This is the data behind the code runner's `--task-examples`
default. A script that prints figures, not a test. Usage:

    python bench/bench_internal_tests.py [--model qwen2.5-coder-0.5b] [--slice 0:20] [--replies FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import re
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from env_servers.coderunner import CodeRunnerConfig, CodeRunnerDomain
from env_servers.coderunner.internal_tests import docstring_examples, parse_asserts
from env_servers.sandbox import RunRequest, make_sandbox
from llm_gateway.backends.base import GenerationRequest
from llm_gateway.backends.local import LocalBackend
from llm_gateway.model_store import FAST_MODEL
from planner.context import derived_seed
from planner.prompting import PromptRenderer

NUMBER = re.compile(r"^HumanEval[_/](\d+)")


def reference_programs() -> dict[str, str]:
    """HumanEval number → the reference program (prompt + canonical solution)."""
    with resources.files("lats_data").joinpath("HumanEval.jsonl.gz").open("rb") as raw:
        records = [json.loads(line) for line in gzip.decompress(raw.read()).decode().splitlines() if line]
    return {NUMBER.match(r["task_id"]).group(1): r["prompt"] + r["canonical_solution"] for r in records}


async def failing(sandbox, program: str, tests: list[str], entry_point: str) -> list[str]:
    """The tests among `tests` that `program` fails."""
    if not tests:
        return []
    result = await sandbox.run(RunRequest(program=program, tests=tuple(tests), entry_points=(entry_point,)))
    return [outcome.test for outcome in result.tests if not outcome.passed] or (
        [] if result.status == "ok" else list(tests)
    )


@dataclass
class Tally:
    """Tests and problems counted over the split."""

    model: int = 0
    model_wrong: int = 0
    examples: int = 0
    examples_wrong: int = 0
    problems_model_wrong: int = 0
    problems_examples_wrong: int = 0
    problems_no_model: int = 0

    def add(self, model: list[str], model_wrong: list[str], examples: list[str],
            examples_wrong: list[str]) -> None:
        self.model += len(model)
        self.model_wrong += len(model_wrong)
        self.examples += len(examples)
        self.examples_wrong += len(examples_wrong)
        self.problems_model_wrong += bool(model_wrong)
        self.problems_examples_wrong += bool(examples_wrong)
        self.problems_no_model += not model

    def print_summary(self, count: int) -> None:
        print(f"\nproblems: {count}; with no usable model assert: {self.problems_no_model}")
        print(f"model-written tests: {self.model}, wrong {self.model_wrong} "
              f"({self.model_wrong / max(1, self.model):.0%}); problems with a wrong one: "
              f"{self.problems_model_wrong} of {count}")
        print(f"docstring examples: {self.examples}, wrong {self.examples_wrong}; "
              f"problems with a wrong one: {self.problems_examples_wrong} of {count}")


async def setup_reply(backend, pack, messages, task_id: str, replies: dict[str, str],
                      replies_file: Path | None) -> str:
    """The model's setup reply for the task, asked as a search's setup step asks it
    (temperature 0, the planner's setup seed) unless `replies` already holds it;
    a new reply is written to `replies_file` at once."""
    if task_id not in replies:
        generated = await backend.generate(GenerationRequest(
            messages=messages, temperature=0.0, stop=tuple(pack.setup_stop),
            max_tokens=pack.setup_max_tokens or 256, seed=derived_seed(0, "setup", "setup")))
        replies[task_id] = generated.choices[0].text
        if replies_file:
            replies_file.write_text(json.dumps(replies, indent=1))
    return replies[task_id]


async def main(args: argparse.Namespace) -> None:
    sandbox = make_sandbox(args.sandbox, workers=1)
    domain = CodeRunnerDomain(CodeRunnerConfig(sandbox=args.sandbox), sandbox=sandbox)
    pack = domain.describe().prompt_pack
    replies = json.loads(args.replies.read_text()) if args.replies and args.replies.exists() else {}
    backend = LocalBackend(args.model, max_concurrency=1)
    await backend.load()
    references = reference_programs()
    start, stop = (int(part) if part else None for part in args.slice.split(":"))
    ids = domain.list_tasks(args.split)[start:stop]
    limit = domain.config.internal_tests
    print(f"split {args.split} [{args.slice}], model {args.model}, setup at temperature 0, "
          f"at most {limit} model tests per problem, reference = HumanEval's canonical solution")
    print(f"{'task':<36} {'model wrong':>11} {'examples wrong':>14}  seconds")
    tally = Tally()
    for task_id in ids:
        problem = domain.tasks.get(task_id)
        messages = PromptRenderer(pack, domain.reset(task_id, 0, {}).observation).setup()
        began = time.monotonic()
        reply = await setup_reply(backend, pack, messages, task_id, replies, args.replies)
        seconds = time.monotonic() - began
        model = parse_asserts(reply, problem.entry_point, limit)
        examples = docstring_examples(problem.prompt, problem.entry_point, limit)
        reference = references[NUMBER.match(task_id).group(1)]
        model_wrong = await failing(sandbox, reference, model, problem.entry_point)
        examples_wrong = await failing(sandbox, reference, examples, problem.entry_point)
        tally.add(model, model_wrong, examples, examples_wrong)
        print(f"{task_id:<36} {len(model_wrong):>5} of {len(model):<3} {len(examples_wrong):>8} of {len(examples):<3}"
              f"  {seconds:7.1f}", flush=True)
    tally.print_summary(len(ids))
    await sandbox.aclose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=FAST_MODEL)
    parser.add_argument("--split", default="lats-humaneval")
    parser.add_argument("--slice", default="0:20")
    parser.add_argument("--sandbox", default="bwrap")
    parser.add_argument("--replies", type=Path, help="JSON file of the model's replies: read if it exists "
                        "(no model call for those problems), written as replies come")
    asyncio.run(main(parser.parse_args()))
