"""Latency of the Wikipedia environment's actions on the offline index, through gRPC.

Starts `lats serve env hotpotqa` as its own process on a loopback port (index
built from the vendored HotPotQA file into a temporary directory, or the
--index given), then times Step round trips from a client, by action:
  * Search hit    Search[<a title of the index>] (tolerant title match)
  * Search miss   Search[<two words>] that matches no title (full-text suggestions)
  * Lookup        Lookup[<a word of the open page>]
and prints p50 / p99 in milliseconds, plus the index build time.
This is a script that prints figures, not a test. Usage:
    python bench/bench_wiki.py [--steps 2000] [--index FILE]
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

import grpc

from env_servers.wiki.index import build_index
from env_servers.wiki.settings import DEFAULT_DISTRACTOR_FILE
from lats_runtime.processes import start_service
from lats_pb import environment_pb2 as env_pb
from lats_pb import environment_pb2_grpc as env_grpc


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def workload(index: Path, steps: int, seed: int = 0) -> list[tuple[str, str]]:
    """(kind, action) pairs: each search hit is followed by a lookup on its page."""
    with sqlite3.connect(index) as connection:
        titles = [t for (t,) in connection.execute("SELECT title FROM pages")]
    rng = random.Random(seed)
    words = sorted({w for t in titles for w in t.split() if w.isalpha() and len(w) > 3})
    actions = []
    while len(actions) < steps:
        title = rng.choice(titles)
        actions.append(("Search hit", f"Search[{title.lower()}]"))
        actions.append(("Lookup", f"Lookup[{rng.choice(title.split())}]"))
        actions.append(("Search miss", f"Search[{rng.choice(words)} zzq{rng.randint(0, 999)}]"))
    return actions[:steps]


def run(address: str, actions: list[tuple[str, str]]) -> dict[str, list[float]]:
    timings: dict[str, list[float]] = {}
    with grpc.insecure_channel(address) as channel:
        stub = env_grpc.EnvironmentStub(channel)
        start = stub.Reset(env_pb.ResetRequest(task_id="hotpotqa/0")).snapshot
        snapshot, steps = start, 0
        for kind, action in actions:
            if steps >= 9:  # stay under max_steps: continue in a fresh episode
                snapshot, steps = start, 0
                if kind == "Lookup":
                    continue  # its page was opened in the episode left behind
            started = time.perf_counter()
            step, = stub.Step(env_pb.StepRequest(snapshot=snapshot, actions=[action])).results
            timings.setdefault(kind, []).append((time.perf_counter() - started) * 1000)
            snapshot, steps = step.snapshot, steps + 1
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--index", type=Path, default=None,
                        help="an index built by `lats wiki index` (default: the vendored data)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        index = args.index
        if index is None:
            stats = build_index([DEFAULT_DISTRACTOR_FILE], Path(tmp) / "bench.sqlite3")
            index = stats.path
            print(f"index: {stats.questions} questions, {stats.pages} pages, "
                  f"built in {stats.seconds * 1000:.0f} ms")
        service = start_service("env", ["env", "hotpotqa"], timeout=60,
                                env={"LATS_WIKI_INDEX": str(index),
                                     "LATS_WIKI_CACHE_DIR": str(Path(tmp) / "cache")})
        try:
            run(service.address, workload(index, 200, seed=1))  # warm up
            timings = run(service.address, workload(index, args.steps))
        finally:
            service.stop()
    print(f"Step round trips through gRPC on the offline index ({args.steps} steps):")
    for kind, values in sorted(timings.items()):
        print(f"  {kind:<12} n={len(values):<5} p50 {percentile(values, 0.5):6.2f} ms   "
              f"p99 {percentile(values, 0.99):6.2f} ms   mean {statistics.fmean(values):6.2f} ms")


if __name__ == "__main__":
    main()
