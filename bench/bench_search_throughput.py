"""Throughput of the search machinery with the model taken out of the picture.

Starts the Game-of-24 environment, the LLM gateway with a zero-latency scripted
model, and the planner as separate processes on loopback ports, then prints:
  * node expansions per second of full LATS searches through real gRPC
    (planner -> gateway and planner -> environment), and
  * the environment round trips (Step, Snapshot, Restore) p50 / p99 in ms.
This is a script that prints figures, not a test. Usage:
    python bench/bench_search_throughput.py [--searches 5] [--iterations 40] [--steps 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

import grpc
from google.protobuf import struct_pb2

from lats.processes import running_services
from lats_pb import environment_pb2 as env_pb
from lats_pb import environment_pb2_grpc as env_grpc
from lats_pb import planner_pb2 as pb
from lats_pb import planner_pb2_grpc as pb_grpc

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


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def bench_searches(planner: str, env: str, searches: int, iterations: int) -> None:
    task = struct_pb2.Struct()
    task.update({"numbers": [4, 4, 6, 8]})
    expansions = nodes = 0
    started = time.perf_counter()
    async with grpc.aio.insecure_channel(planner) as channel:
        stub = pb_grpc.PlannerStub(channel)
        for seed in range(searches):
            request = pb.SolveRequest(env_address=env, inline_task=task, config=pb.SearchConfig(
                n_samples=5, iterations=iterations, max_depth=4, seed=seed, reflection=True))
            async for event in stub.Solve(request):
                if event.HasField("finished"):
                    result = event.finished
                    expansions += result.nodes_expanded
                    nodes += result.nodes
    wall = time.perf_counter() - started
    print(f"searches: {searches} x (n=5, k={iterations}, d=4), zero-latency scripted model")
    print(f"  node expansions/s: {expansions / wall:8.1f}   ({expansions} expansions, "
          f"{nodes} nodes, {wall:.2f} s)")
    print(f"  nodes created/s:   {nodes / wall:8.1f}")


async def bench_env_round_trips(env: str, steps: int) -> None:
    async with grpc.aio.insecure_channel(env) as channel:
        stub = env_grpc.EnvironmentStub(channel)
        task = struct_pb2.Struct()
        task.update({"numbers": [4, 4, 6, 8]})
        reset = await stub.Reset(env_pb.ResetRequest(inline_task=task))
        blob = (await stub.Snapshot(env_pb.SnapshotRequest(session_id=reset.session_id))).blob
        timings: dict[str, list[float]] = {"Step": [], "Snapshot": [], "Restore": []}
        for i in range(steps):
            t0 = time.perf_counter()
            session = (await stub.Restore(env_pb.RestoreRequest(blob=blob))).session_id
            t1 = time.perf_counter()
            action = "4 + 4 = 8 (left: 6 8 8)" if i % 2 else "8 - 6 = 2 (left: 2 4 4)"
            await stub.Step(env_pb.StepRequest(session_id=session, action=action))
            t2 = time.perf_counter()
            await stub.Snapshot(env_pb.SnapshotRequest(session_id=session))
            t3 = time.perf_counter()
            await stub.Close(env_pb.CloseRequest(session_id=session))
            timings["Restore"].append(t1 - t0)
            timings["Step"].append(t2 - t1)
            timings["Snapshot"].append(t3 - t2)
    print(f"environment round trips over {steps} forks (sequential, loopback):")
    for name, values in timings.items():
        ms = [v * 1000 for v in values]
        print(f"  {name:9s} p50 {percentile(ms, 0.50):6.3f} ms   p99 {percentile(ms, 0.99):6.3f} ms"
              f"   mean {statistics.fmean(ms):6.3f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--searches", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=40)
    parser.add_argument("--steps", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "script.json"
        script.write_text(json.dumps(SCRIPT))
        specs = [
            ("env", ["env", "game24"]),
            ("gateway", ["gateway", "--backend", "scripted", "--script", str(script)]),
            ("planner", ["planner", "--gateway", "{gateway}", "--db", str(Path(tmp) / "runs.db")]),
        ]
        with running_services(specs) as services:
            env, planner = services["env"].address, services["planner"].address
            asyncio.run(bench_env_round_trips(env, args.steps))
            asyncio.run(bench_searches(planner, env, args.searches, args.iterations))


if __name__ == "__main__":
    main()
