"""Step latency of the WebShop environment through gRPC.

Starts `lats serve env webshop` as a separate process on a loopback port and
plays a fixed shopping script on episodes fixed_0, fixed_1, ... (search the
instruction, open the first result, pick the first value of every option,
read Description and Features, go back, page to the next results, open a
product, buy it), timing every Step round trip. Prints p50 / p99 in ms for
all steps and per action kind, plus Score of the bought state. Each episode's
search is a new query (no cache hit), so `search` shows the ranking cost.
The catalog is built into the WebShop cache first if needed (not timed).
This is a script that prints figures, not a test. Usage:
    python bench/bench_webshop.py [--episodes 40]
"""

from __future__ import annotations

import argparse
import re
import time
from collections import defaultdict

import grpc

from env_servers.webshop.catalog import open_catalog
from lats_runtime.processes import start_service
from lats_pb import environment_pb2 as env_pb
from lats_pb import environment_pb2_grpc as env_grpc

_PRODUCT = re.compile(r"^\[(B0[0-9A-Z]{8})\]$", re.MULTILINE)
_OPTION_LINE = re.compile(r"^[^\[\n]+ \[([^\]]+)\]", re.MULTILINE)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def shopping_script(instruction: str):
    """Yields actions; each gets the previous observation sent back in."""
    observation = yield f"search[{instruction}]"
    products = _PRODUCT.findall(observation)
    observation = yield f"click[{products[0]}]"
    for value in _OPTION_LINE.findall(observation):
        yield f"click[{value}]"
    yield "think[The first result may fit; let me read about it.]"
    yield "click[Description]"
    yield "click[< Prev]"
    yield "click[Features]"
    yield "click[< Prev]"
    yield "click[< Prev]"
    observation = yield "click[Next >]"
    products = _PRODUCT.findall(observation) or products
    yield f"click[{products[0]}]"
    yield "click[Buy Now]"


def kind_of(action: str) -> str:
    name = action.split("[", 1)[0]
    if name == "click" and action.startswith("click[B0"):
        return "click product"
    if action == "click[Buy Now]":
        return "click Buy Now"
    return name


def play(stub, task: str, timings: dict[str, list[float]], slowest: list) -> float:
    reset = stub.Reset(env_pb.ResetRequest(task_id=task), timeout=30)
    instruction = reset.info.fields["instruction"].string_value
    script = shopping_script(instruction.split(", and price lower than")[0])
    action = next(script)
    reward = 0.0
    snapshot = reset.snapshot
    while True:
        started = time.perf_counter()
        step, = stub.Step(env_pb.StepRequest(snapshot=snapshot, actions=[action]),
                          timeout=30).results
        elapsed = (time.perf_counter() - started) * 1000
        timings["all steps"].append(elapsed)
        timings[kind_of(action)].append(elapsed)
        slowest.append((elapsed, task, action))
        if step.invalid_action:
            raise RuntimeError(f"{task}: {action} was invalid: {step.observation[:200]}")
        reward = step.reward
        snapshot = step.snapshot
        if step.terminated:
            break
        action = script.send(step.observation)
    started = time.perf_counter()
    stub.Score(env_pb.ScoreRequest(snapshot=snapshot), timeout=30)
    timings["Score"].append((time.perf_counter() - started) * 1000)
    return reward


def main() -> None:
    parser = argparse.ArgumentParser(description="WebShop Step latency through gRPC")
    parser.add_argument("--episodes", type=int, default=40)
    args = parser.parse_args()
    started = time.perf_counter()
    store = open_catalog()
    print(f"catalog {store.catalog_id}: {store.product_count} products, {store.goal_count} "
          f"goals (ready in {time.perf_counter() - started:.1f}s)")
    service = start_service("env", ["env", "webshop"], timeout=120)
    try:
        timings: dict[str, list[float]] = defaultdict(list)
        rewards, slowest = [], []
        with grpc.insecure_channel(service.address) as channel:
            stub = env_grpc.EnvironmentStub(channel)
            for episode in range(args.episodes):
                rewards.append(play(stub, f"fixed_{episode}", timings, slowest))
    finally:
        service.stop()
    print(f"{args.episodes} episodes, {len(timings['all steps'])} steps, one client, "
          f"sequential (mean reward of the blind script {sum(rewards) / len(rewards):.3f})")
    print(f"  {'':16} {'count':>6} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    order = ["all steps", "search", "click product", "click", "think", "click Buy Now", "Score"]
    for name in order:
        values = timings.get(name)
        if values:
            print(f"  {name:16} {len(values):6d} {percentile(values, 0.5):8.2f} "
                  f"{percentile(values, 0.99):8.2f} {max(values):8.2f}")
    print("slowest steps:")
    for elapsed, task, action in sorted(slowest, reverse=True)[:3]:
        print(f"  {elapsed:8.1f} ms  {task}  {action[:90]}")


if __name__ == "__main__":
    main()
