"""Tree-parallel LATS: wall time and success for P = 1, 4, 8 at equal model calls.

Starts the Game-of-24 environment server as its own process and runs LATS
searches in this process against it, with a scripted model of fixed latency
and unlimited concurrency (a stand-in for vLLM or a hosted API). The scripted
model reads the puzzle and the steps so far out of each prompt: an act sample
is a legal step that keeps 24 reachable with probability --skill (else any
legal step), or the answer expression once 24 is the only number left; a value
says "sure"-ish (6-9) for reachable states and "impossible"-ish (1-4)
otherwise, wrong with probability 0.2. Every P gets the same tasks, seeds and
call budget per task (SearchConfig budget semantics: calls in flight count).
A script, not a test:
    python bench/bench_parallel_lats.py [--tasks 20] [--latency 0.5] [--max-calls 60]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import time
from fractions import Fraction
from functools import lru_cache

from lats_runtime.run_status import RunStatus

from planner.search_config import LatsConfig
from planner.environment import TaskRef
from planner.environment_client import connect_environment
from planner.events import EventSink
from planner.methods import method_spec
from planner.model_client import BudgetExhausted, ModelClient, SamplingParams

from lats_runtime.processes import running_services

_STEP = re.compile(r"Step \d+: (\S+) ([-+*/]) (\S+) = (\S+)")


@lru_cache(maxsize=None)
def reachable(numbers: tuple[Fraction, ...]) -> bool:
    """Can these numbers still make 24 with + - * /?"""
    if len(numbers) == 1:
        return numbers[0] == 24
    return any(reachable(rest) for _, _, _, rest in moves(numbers))


def moves(numbers: tuple[Fraction, ...]):
    """Every (a, op, b, numbers left) one step can make."""
    for i in range(len(numbers)):
        for j in range(len(numbers)):
            if i == j:
                continue
            a, b = numbers[i], numbers[j]
            others = [x for k, x in enumerate(numbers) if k not in (i, j)]
            results = {"+": a + b, "*": a * b, "-": a - b}
            if b != 0:
                results["/"] = a / b
            for op, value in results.items():
                if op in "+*" and i > j:
                    continue
                yield a, op, b, tuple(sorted((*others, value)))


def _apply(a: Fraction, op: str, b: Fraction) -> Fraction:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    return a * b if op == "*" else a / b


def _text(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def puzzle_state(prompt: str) -> list[tuple[Fraction, str]]:
    """The numbers left, each with the expression that made it, from the
    current puzzle's part of an act or value prompt."""
    tail = prompt.rsplit("Input: ", 1)[1]
    items = [(Fraction(t), t) for t in tail.split("\n", 1)[0].split()]
    for a, op, b, _ in _STEP.findall(tail):
        a, b = Fraction(a), Fraction(b)
        ia = next((i for i, (v, _) in enumerate(items) if v == a), None)
        ib = next((i for i, (v, _) in enumerate(items) if v == b and i != ia), None)
        if ia is None or ib is None or (op == "/" and b == 0):
            continue               # a step the environment rejected: not in the state
        ea, eb = items[ia][1], items[ib][1]
        items = [item for i, item in enumerate(items) if i not in (ia, ib)]
        value = _apply(a, op, b)
        items.append((value, f"({ea} {op} {eb})"))
    return items


class ScriptedGame24Model(ModelClient):
    """A Game-of-24 player of fixed skill that answers after `latency` seconds."""

    def __init__(self, latency: float, skill: float, max_calls: int):
        super().__init__()
        self.latency, self.skill, self.max_calls = latency, skill, max_calls
        self.started = 0

    async def complete(self, messages, params: SamplingParams) -> list[str]:
        if self.started >= self.max_calls:
            raise BudgetExhausted(f"{self.max_calls} calls used")
        self.started += 1
        await asyncio.sleep(self.latency)
        prompt = messages[-1][1]
        texts = [self._answer(params.purpose, prompt, random.Random(params.seed * 64 + i))
                 for i in range(params.n)]
        self.usage.add(1, len(prompt.split()), sum(len(t.split()) for t in texts))
        return texts

    def _answer(self, purpose: str, prompt: str, rng: random.Random) -> str:
        if purpose == "reflect":
            return "Start with a step that keeps 24 reachable."
        items = puzzle_state(prompt)
        numbers = tuple(sorted(v for v, _ in items))
        if purpose == "value":
            good = reachable(numbers) if rng.random() > 0.2 else not reachable(numbers)
            return f"Thus the correctness score is {rng.randint(6, 9) if good else rng.randint(1, 4)}"
        if len(items) == 1:
            return f"Answer: {items[0][1].removeprefix('(').removesuffix(')')} = 24"
        options = [(a, op, b, left) for a, op, b, left in moves(numbers)
                   if all(x.denominator == 1 and x >= 0 for x in left)]
        good = [m for m in options if reachable(m[3])]
        a, op, b, left = rng.choice(good if good and rng.random() < self.skill else options)
        result = _apply(a, op, b)
        return (f"{_text(a)} {op} {_text(b)} = {_text(result)} "
                f"(left: {' '.join(_text(x) for x in left)})")


async def solve_all(env_address: str, tasks: list[str], parallel: int, args) -> tuple[float, int, int]:
    """(wall seconds, tasks solved, model calls) for LATS with P = parallel."""
    env = connect_environment(env_address)
    description = await env.describe()
    solved = calls = 0
    began = time.monotonic()
    try:
        for index, task in enumerate(tasks):
            model = ScriptedGame24Model(args.latency, args.skill, args.max_calls)
            config = LatsConfig(n_samples=args.n, iterations=args.max_calls, max_depth=4,
                                seed=index, parallel=parallel)
            search = method_spec("lats").search(env, description, model, config,
                                                TaskRef(task_id=task), EventSink())
            outcome = await search.run()
            solved += outcome.status is RunStatus.SOLVED
            calls += model.started        # calls started, cancelled ones included
    finally:
        await env.aclose()
    return time.monotonic() - began, solved, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=20, help="game24/900 onwards")
    parser.add_argument("--latency", type=float, default=0.5, help="seconds per model call")
    parser.add_argument("--skill", type=float, default=0.4)
    parser.add_argument("--max-calls", type=int, default=60, help="model calls per task")
    parser.add_argument("-n", type=int, default=3)
    parser.add_argument("--parallel", default="1,4,8")
    args = parser.parse_args()
    tasks = [f"game24/{900 + i}" for i in range(args.tasks)]
    with running_services([("env", ["env", "game24"])]) as services:
        address = services["env"].address
        print(f"LATS on {len(tasks)} Game-of-24 tasks (game24/900..), mode none, scripted model "
              f"(skill {args.skill}, {args.latency:g} s per call, unlimited concurrency), "
              f"budget {args.max_calls} calls per task, n={args.n}, d=4")
        print(f"{'P':>3} {'wall s':>8} {'speed-up':>9} {'solved':>8} {'calls/task':>11}")
        base = None
        for parallel in [int(p) for p in args.parallel.split(",")]:
            wall, solved, calls = asyncio.run(solve_all(address, tasks, parallel, args))
            base = base or wall
            print(f"{parallel:>3} {wall:>8.1f} {base / wall:>8.2f}x {solved:>4}/{len(tasks):<3} "
                  f"{calls / len(tasks):>11.1f}")


if __name__ == "__main__":
    main()
