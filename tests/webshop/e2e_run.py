"""The end-to-end WebShop run shared by the replay test and its recorder.

`python -m tests.webshop.e2e_run --record` re-records RECORDING: it starts the
WebShop server, the gateway with the embedded 0.5B model (`--backend local
--record`) and the planner, runs SOLVE_CONFIG on TASK, and keeps the
exchanges. The replay test runs the very same Solve against `--backend
replay`, so every prompt must come out byte-identical: re-record whenever the
catalog generator, the page text or the prompt pack changes.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import grpc

from lats.processes import running_services
from lats_pb import planner_pb2 as pb
from lats_pb import planner_pb2_grpc as pb_grpc

TASK = "fixed_0"
RECORDING = Path(__file__).with_name("recordings") / "webshop_fixed_0_qwen0.5b.jsonl"
# What the recorded run did, written next to the recording by `--record`.
EXPECTED = RECORDING.with_suffix(".expected.json")
MODEL = "qwen2.5-coder-0.5b"
SOLVE_CONFIG = dict(method="lats_paper", n_samples=2, iterations=1, max_depth=6, seed=11)


def services_spec(db: Path, gateway: list[str]) -> list[tuple[str, list[str]]]:
    return [
        ("env", ["env", "webshop"]),
        ("gateway", ["gateway", *gateway]),
        ("planner", ["planner", "--gateway", "{gateway}", "--db", str(db)]),
    ]


def solve(planner_address: str, env_address: str, timeout: float) -> list[pb.SearchEvent]:
    request = pb.SolveRequest(env_address=env_address, task_id=TASK,
                              config=pb.SearchConfig(**SOLVE_CONFIG))
    with grpc.insecure_channel(planner_address) as channel:
        return list(pb_grpc.PlannerStub(channel).Solve(request, timeout=timeout))


def summary(events: list[pb.SearchEvent]) -> dict:
    """The facts of a run the replay must reproduce."""
    result = events[-1].finished
    return {
        "events": len(events),
        "status": pb.RunStatus.Name(result.status),
        "actions": list(result.actions),
        "final_observation": result.final_observation,
        "reward": result.reward,
        "score": result.score.score,
        "success": result.score.success,
        "iterations": result.iterations,
        "nodes_expanded": result.nodes_expanded,
        "nodes": result.nodes,
        "added": [[e.node_added.id, e.node_added.action] for e in events
                  if e.WhichOneof("event") == "node_added"],
        "reflections": [e.reflection.text for e in events
                        if e.WhichOneof("event") == "reflection"],
        "model_calls": result.usage.calls,
        "reason": result.stop_reason or result.error,
    }


def record() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        fresh = Path(scratch) / "recording.jsonl"
        gateway = ["--backend", "local", "--model", MODEL, "--record", str(fresh),
                   "--max-concurrency", "1", "--n-ctx", "16384", "--timeout", "900",
                   "--deadline", "900"]
        started = time.monotonic()
        with running_services(services_spec(Path(scratch) / "runs.sqlite3", gateway),
                              timeout=300) as services:
            events = solve(services["planner"].address, services["env"].address, 3600)
        result = events[-1].finished
        print(f"{len(events)} events in {time.monotonic() - started:.0f}s; status "
              f"{pb.RunStatus.Name(result.status)}, score {result.score.score}, "
              f"actions {list(result.actions)}, error {result.error!r}")
        RECORDING.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(fresh, RECORDING)
        EXPECTED.write_text(json.dumps(summary(events), indent=1, ensure_ascii=False) + "\n")
        print(f"recorded {sum(1 for _ in RECORDING.open())} exchanges into {RECORDING}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--record", action="store_true", help="record with the local model")
    if not parser.parse_args().record:
        parser.print_help()
        sys.exit(2)
    record()
