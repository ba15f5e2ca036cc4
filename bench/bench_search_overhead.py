"""How much of an LLM-bound search's wall time is spent outside the model.

Starts the environment, the gateway with the embedded model and the planner as
separate processes, runs real LATS searches, and prints for each the wall time,
the time during which a model call was in flight (RunResult.model_seconds),
and the rest: planner + gateway + environment overhead. A script, not a test:
    python bench/bench_search_overhead.py [--model qwen2.5-coder-0.5b] [--env game24]
        [--task game24/900] [-n 2] [-k 2] [--searches 1]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

import grpc

from lats_runtime.processes import running_services
from lats_pb import planner_pb2 as pb
from lats_pb import planner_pb2_grpc as pb_grpc


async def one_search(planner: str, env: str, task: str, n: int, k: int, seed: int) -> pb.RunResult:
    request = pb.SolveRequest(env_address=env, task_id=task, config=pb.SearchConfig(
        n_samples=n, iterations=k, max_depth=4, seed=seed))
    async with grpc.aio.insecure_channel(planner) as channel:
        async for event in pb_grpc.PlannerStub(channel).Solve(request):
            if event.HasField("finished"):
                return event.finished
    raise RuntimeError("the stream ended without a result")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="qwen2.5-coder-0.5b")
    parser.add_argument("--env", default="game24")
    parser.add_argument("--task", default="game24/900")
    parser.add_argument("-n", type=int, default=2)
    parser.add_argument("-k", type=int, default=2)
    parser.add_argument("--searches", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        specs = [
            ("env", ["env", args.env]),
            ("gateway", ["gateway", "--backend", "local", "--model", args.model,
                         "--deadline", "1800"]),
            ("planner", ["planner", "--gateway", "{gateway}", "--model-timeout", "1800",
                         "--db", str(Path(tmp) / "runs.sqlite3")]),
        ]
        with running_services(specs, timeout=600) as services:
            total_wall = total_model = 0.0
            for seed in range(args.searches):
                r = asyncio.run(one_search(services["planner"].address, services["env"].address,
                                           args.task, args.n, args.k, seed))
                outside = r.wall_seconds - r.model_seconds
                total_wall += r.wall_seconds
                total_model += r.model_seconds
                print(f"search {seed}: {r.usage.calls} model calls, wall {r.wall_seconds:.2f} s, "
                      f"model {r.model_seconds:.2f} s, outside the model {outside:.3f} s "
                      f"({100 * outside / r.wall_seconds:.2f} %)")
    share = 100 * (total_wall - total_model) / total_wall
    print(f"{args.env} {args.task}, model {args.model}, n={args.n} k={args.k}: "
          f"{share:.2f} % of search wall time outside the model (target < 2 %)")


if __name__ == "__main__":
    main()
