"""Throughput of the search machinery, and how it scales with replicas.

Every service is a separate process on loopback ports, talking real gRPC.
Prints, in one run:
  1. nodes/s of LATS searches with a zero-latency scripted model, with each
     expansion's children stepped in one Step call (batched) and one Step call
     per child (the environment started with --max-batch-actions 1);
  2. environment time per expansion of five children, both ways (p50 / p99 ms);
  3. searches/s with a scripted model of fixed latency, for 1, 2 and 4
     planner replicas and 1 and 2 environment replicas, the planners sharing
     one PostgreSQL run store. Each planner runs at most --max-runs searches
     at once and the bench keeps every planner full, so the figure is the
     capacity the replicas add.
This is a script that prints figures, not a test. Usage:
    python bench/bench_search_throughput.py [--searches 16] [--iterations 20]
        [--latency 0.05] [--planners 1 2 4] [--envs 1 2] [--parts 1 2 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import grpc
from google.protobuf import struct_pb2

from lats_runtime.processes import start_service
from lats.throwaway_postgres import throwaway_postgres
from lats_pb import environment_pb2 as env_pb
from lats_pb import environment_pb2_grpc as env_grpc
from lats_pb import planner_pb2 as pb
from lats_pb import planner_pb2_grpc as pb_grpc
from lats_runtime.channels import open_channel
from lats_runtime.run_status import RunStatus, from_wire

# Every act call returns the same five first steps for 4 4 6 8: valid at the
# root, invalid deeper down, so the tree keeps growing without ever solving.
SCRIPT = {
    "rules": [
        {"name": "act", "purpose": "act", "responses": [
            "4 + 4 = 8 (left: 6 8 8)", "8 - 6 = 2 (left: 2 4 4)", "4 * 6 = 24 (left: 4 8 24)",
            "8 / 4 = 2 (left: 2 4 6)", "6 - 4 = 2 (left: 2 4 8)"]},
        {"name": "value", "purpose": "value", "responses": ["Thus the correctness score is 5"]},
        {"name": "reflect", "purpose": "reflect", "responses": ["Try another first step."]},
    ]
}
NUMBERS = [4, 4, 6, 8]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def inline_task() -> struct_pb2.Struct:
    task = struct_pb2.Struct()
    task.update({"numbers": NUMBERS})
    return task


class Cluster:
    """Replicas of the three services; stops them all on exit."""

    def __init__(self, script: Path, db: str, latency: float, max_runs: int):
        self.script, self.db, self.latency, self.max_runs = script, db, latency, max_runs
        self.services = []

    def start(self, name: str, args: list[str]):
        service = start_service(name, args, timeout=120)
        self.services.append(service)
        return service

    def envs(self, count: int, max_batch: int = 32) -> str:
        return ",".join(self.start(f"env{i}", ["env", "game24", "--snapshot-key", "bench",
                                               "--max-batch-actions", str(max_batch)]).address
                        for i in range(count))

    def gateways(self, count: int) -> str:
        return ",".join(self.start(f"gateway{i}", [
            "gateway", "--backend", "scripted", "--script", str(self.script),
            "--latency", str(self.latency), "--max-concurrency", "256"]).address
            for i in range(count))

    def planners(self, count: int, gateway: str) -> str:
        return ",".join(self.start(f"planner{i}", [
            "planner", "--gateway", gateway, "--db", self.db,
            "--max-runs", str(self.max_runs)]).address for i in range(count))

    def stop(self) -> None:
        for service in reversed(self.services):
            service.stop()


@contextlib.contextmanager
def cluster(*args):
    running = Cluster(*args)
    try:
        yield running
    finally:
        running.stop()


async def run_searches(planner: str, env: str, searches: int, iterations: int,
                       concurrency: int) -> tuple[int, int, float]:
    """Runs `searches` LATS searches, `concurrency` at a time; (nodes, expansions, wall)."""
    nodes = expansions = 0
    slots = asyncio.Semaphore(concurrency)
    async with open_channel(planner) as channel:
        stub = pb_grpc.PlannerStub(channel)

        async def one(seed: int) -> None:
            nonlocal nodes, expansions
            request = pb.SolveRequest(env_address=env, inline_task=inline_task(),
                                      config=pb.SearchConfig(n_samples=5, iterations=iterations,
                                                             max_depth=4, seed=seed))
            async with slots:
                while True:
                    try:
                        async for event in stub.Solve(request, timeout=600):
                            if event.HasField("finished"):
                                if from_wire(event.finished.status) is RunStatus.ERROR:
                                    raise RuntimeError(event.finished.error)
                                nodes += event.finished.nodes
                                expansions += event.finished.nodes_expanded
                        return
                    except grpc.aio.AioRpcError as error:
                        # a full planner refuses; the next call goes to another replica
                        if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                            raise
                        await asyncio.sleep(0.01)

        started = time.perf_counter()
        await asyncio.gather(*(one(seed) for seed in range(searches)))
        return nodes, expansions, time.perf_counter() - started


def part_nodes_per_second(script: Path, db: str, args) -> None:
    print(f"1. nodes/s, zero-latency scripted model: {args.searches} searches (n=5, "
          f"k={args.iterations}, d=4), {args.concurrency} at a time, one replica of each")
    rates = {}
    for way, max_batch in (("per child", 1), ("batched", 32)):
        with cluster(script, db, 0.0, args.concurrency) as running:
            env = running.envs(1, max_batch)
            planner = running.planners(1, running.gateways(1))
            asyncio.run(run_searches(planner, env, 2, 4, 2))          # warm up
            nodes, expansions, wall = asyncio.run(run_searches(
                planner, env, args.searches, args.iterations, args.concurrency))
        rates[way] = nodes / wall
        label = "1 Step per child" if way == "per child" else "1 Step per expansion (batched)"
        print(f"   {label:40s} {nodes / wall:8.1f} nodes/s  {expansions / wall:7.1f} "
              f"expansions/s  ({nodes} nodes, {wall:.2f} s)")
    print(f"   batched / per child: {rates['batched'] / rates['per child']:.2f}x")


async def round_trips(env: str, steps: int) -> dict[str, list[float]]:
    timings: dict[str, list[float]] = {"per child": [], "batched": []}
    actions = ["4 + 4 = 8 (left: 6 8 8)", "8 - 6 = 2 (left: 2 4 4)", "4 * 6 = 24 (left: 4 8 24)",
               "8 / 4 = 2 (left: 2 4 6)", "6 - 4 = 2 (left: 2 4 8)"]
    async with open_channel(env) as channel:
        stub = env_grpc.EnvironmentStub(channel)
        snapshot = (await stub.Reset(env_pb.ResetRequest(inline_task=inline_task()))).snapshot
        for i in range(steps):
            t0 = time.perf_counter()
            for action in actions:     # one expansion of five children, one call each
                await stub.Step(env_pb.StepRequest(snapshot=snapshot, actions=[action]))
            t1 = time.perf_counter()
            await stub.Step(env_pb.StepRequest(snapshot=snapshot, actions=actions))
            t2 = time.perf_counter()
            timings["per child"].append((t1 - t0) * 1000)
            timings["batched"].append((t2 - t1) * 1000)
    return timings


def part_round_trips(script: Path, db: str, args) -> None:
    print(f"2. environment time per expansion of 5 children, over {args.steps} expansions "
          "(sequential, loopback)")
    with cluster(script, db, 0.0, 1) as running:
        timings = asyncio.run(round_trips(running.envs(1), args.steps))
    for name, label in (("per child", "5 Steps of 1 action"),
                        ("batched", "1 Step of 5 actions")):
        values = timings[name]
        print(f"   {label:48s} p50 {percentile(values, 0.5):7.3f} ms  p99 "
              f"{percentile(values, 0.99):7.3f} ms  mean {statistics.fmean(values):7.3f} ms")


def part_scaling(script: Path, db: str, args) -> None:
    print(f"3. scaling: model latency {args.latency:g}s per call, each planner runs at most "
          f"{args.max_runs} searches at once; {args.scale_searches} searches (n=5, "
          f"k={args.scale_iterations}, d=4) per planner replica, PostgreSQL run store")
    base = None
    for envs in args.envs:
        for planners in args.planners:
            with cluster(script, db, args.latency, args.max_runs) as running:
                env = running.envs(envs)
                planner = running.planners(planners, running.gateways(2))
                searches = args.scale_searches * planners
                nodes, _, wall = asyncio.run(run_searches(
                    planner, env, searches, args.scale_iterations, args.max_runs * planners))
            rate = searches / wall
            base = base or rate
            print(f"   {planners} planner(s), {envs} env replica(s): {rate:6.2f} searches/s "
                  f"{nodes / wall:8.1f} nodes/s  ({searches} searches, {wall:.1f} s)  "
                  f"{rate / base:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--searches", type=int, default=16)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--max-runs", type=int, default=4)
    parser.add_argument("--scale-searches", type=int, default=16)
    parser.add_argument("--scale-iterations", type=int, default=6)
    parser.add_argument("--planners", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--envs", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp, throwaway_postgres() as db:
        script = Path(tmp) / "script.json"
        script.write_text(json.dumps(SCRIPT))
        parts = {1: part_nodes_per_second, 2: part_round_trips, 3: part_scaling}
        for part in args.parts:
            parts[part](script, db, args)
    print(f"load at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
