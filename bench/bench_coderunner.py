"""Throughput of the code-runner environment: sandboxed Steps per second over gRPC.

Starts `lats serve env coderunner` with each requested sandbox backend as its
own process, then drives it with concurrent clients: each Step sends one full
program (HumanEval/53, a correct one or a wrong one, alternating) that the
server extracts and runs with 4 internal tests in a fresh sandboxed process.
Prints Steps/s and the Step round trip p50 / p99 per backend, plus Score
(hidden tests) round trips. A backend that cannot run here is reported and
skipped. This is a script that prints figures, not a test. Usage:
    python bench/bench_coderunner.py [--sandbox bwrap --sandbox docker] [--steps 400]
        [--clients 8]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

import grpc

from lats_runtime.processes import ServiceStartError, start_service
from lats_pb import environment_pb2 as env_pb
from lats_pb import environment_pb2_grpc as env_grpc

TASK = "HumanEval/53"
TESTS = ("assert add(1, 2) == 3\nassert add(0, 0) == 0\n"
         "assert add(-4, 4) == 0\nassert add(7, 5) == 12")
PROGRAMS = ["```python\ndef add(x: int, y: int):\n    return x + y\n```",
            "```python\ndef add(x: int, y: int):\n    return x * y\n```"]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def drive(address: str, steps: int, clients: int) -> tuple[float, list[float], list[float]]:
    """Runs `steps` Steps from `clients` concurrent clients.

    Returns (seconds, Step round trips in ms, Score round trips in ms)."""
    step_ms: list[float] = []
    score_ms: list[float] = []
    async with grpc.aio.insecure_channel(address) as channel:
        stub = env_grpc.EnvironmentStub(channel)
        reset = await stub.Reset(env_pb.ResetRequest(task_id=TASK,
                                                     options={"internal_tests": TESTS}))
        queue = list(range(steps))

        async def client() -> None:
            while queue:
                number = queue.pop()
                started = time.perf_counter()
                reply, = (await stub.Step(env_pb.StepRequest(
                    snapshot=reset.snapshot, actions=[PROGRAMS[number % 2]]))).results
                step_ms.append((time.perf_counter() - started) * 1000)
                # the right program passes every internal test, the wrong one not all
                assert (reply.reward == 1.0) == (number % 2 == 0), reply.observation
                if number % 10 == 0:
                    started = time.perf_counter()
                    await stub.Score(env_pb.ScoreRequest(snapshot=reply.snapshot))
                    score_ms.append((time.perf_counter() - started) * 1000)

        await asyncio.gather(*(client() for _ in range(2)))  # warm the sandbox pool
        step_ms.clear()
        score_ms.clear()
        queue.extend(range(steps))
        started = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(clients)))
        return time.perf_counter() - started, step_ms, score_ms


def bench(sandbox: str, steps: int, clients: int) -> None:
    env = {"LATS_CODERUNNER_SANDBOX": sandbox}
    if sandbox == "process":
        env["LATS_CODERUNNER_ALLOW_INSECURE_SANDBOX"] = "1"
    try:
        service = start_service("env", ["env", "coderunner"], env=env, timeout=120)
    except ServiceStartError as error:
        print(f"{sandbox:8s} unavailable here: {str(error).splitlines()[-1][:160]}")
        return
    try:
        seconds, step_ms, score_ms = asyncio.run(drive(service.address, steps, clients))
    finally:
        service.stop()
    print(f"{sandbox:8s} {len(step_ms) / seconds:7.1f} Steps/s  "
          f"Step p50 {statistics.median(step_ms):6.1f} ms  "
          f"p99 {percentile(step_ms, 0.99):6.1f} ms  "
          f"Score p50 {statistics.median(score_ms):6.1f} ms  "
          f"({len(step_ms)} Steps, {clients} clients)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sandbox", action="append", choices=["bwrap", "docker", "process"],
                        help="backend(s) to measure (default: bwrap and docker)")
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--clients", type=int, default=8)
    args = parser.parse_args()
    for sandbox in args.sandbox or ["bwrap", "docker"]:
        bench(sandbox, args.steps, args.clients)


if __name__ == "__main__":
    main()
