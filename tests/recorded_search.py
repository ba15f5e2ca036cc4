"""A real-model search through the three services, recorded once and replayed in tests.

`RecordedSearch` names one Solve (environment, task, config, the environment's
settings) and the files of its recording: the gateway's exchanges
(`<name>.jsonl`) and what the recorded run did (`<name>.expected.json`).
`record()` runs it with the embedded model through a recording gateway (`lats
serve gateway --backend local --record`); `replay()` runs the very same Solve
against `--backend replay`, so every prompt must come out byte-identical, and
the replay must reproduce `summary()` of the recorded run event for event. A
change to the environment's pack, observations or the search's requests
changes the prompts: re-record then. A change in how the code reads the same
exchanges (say, a more tolerant parser) keeps every prompt: `refresh()`
rewrites the summary from a replay.

`revisits(events)` finds where the search went back to an earlier state: an
iteration that started from a node other than where the one before it ended,
i.e. a Step on a snapshot older than the latest one.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from lats_runtime.processes import running_services
from lats_pb import planner_pb2 as pb
from lats_pb import planner_pb2_grpc as pb_grpc


@dataclass(frozen=True)
class RecordedSearch:
    name: str                         # the recording's file stem
    folder: Path                      # where the recording lives
    environment: str                  # `lats serve env NAME`
    task: str
    config: dict                      # SearchConfig fields
    model: str                        # the embedded model that was recorded
    env_vars: dict[str, str] = field(default_factory=dict)

    @property
    def recording(self) -> Path:
        return self.folder / f"{self.name}.jsonl"

    @property
    def expected(self) -> Path:
        return self.folder / f"{self.name}.expected.json"

    def specs(self, db: Path, gateway: list[str]) -> list[tuple[str, list[str]]]:
        return [("env", ["env", self.environment]),
                ("gateway", ["gateway", *gateway]),
                ("planner", ["planner", "--gateway", "{gateway}", "--db", str(db)])]

    def solve(self, planner: str, env: str, timeout: float) -> list[pb.SearchEvent]:
        request = pb.SolveRequest(env_address=env, task_id=self.task,
                                  config=pb.SearchConfig(**self.config))
        with grpc.insecure_channel(planner) as channel:
            return list(pb_grpc.PlannerStub(channel).Solve(request, timeout=timeout))

    def replay(self, scratch: Path) -> list[pb.SearchEvent]:
        gateway = ["--backend", "replay", "--replay", str(self.recording)]
        with running_services(self.specs(scratch / "runs.sqlite3", gateway),
                              env=self.env_vars, timeout=120) as services:
            return self.solve(services["planner"].address, services["env"].address, 300)

    def record(self) -> list[pb.SearchEvent]:
        """Runs the search with the embedded model; writes the recording and its summary."""
        with tempfile.TemporaryDirectory() as scratch:
            fresh = Path(scratch) / "recording.jsonl"
            gateway = ["--backend", "local", "--model", self.model, "--record", str(fresh),
                       "--max-concurrency", "1", "--deadline", "0"]
            started = time.monotonic()
            with running_services(self.specs(Path(scratch) / "runs.sqlite3", gateway),
                                  env=self.env_vars, timeout=300) as services:
                events = self.solve(services["planner"].address, services["env"].address,
                                    7200)
            self.folder.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(fresh, self.recording)
        self.expected.write_text(json.dumps(summary(events), indent=1, ensure_ascii=False)
                                 + "\n", encoding="utf-8")
        result = events[-1].finished
        print(f"{len(events)} events in {time.monotonic() - started:.0f} s; "
              f"{pb.RunStatus.Name(result.status)}, score {result.score.score}, "
              f"{result.usage.calls} calls, revisits {revisits(events)}")
        return events

    def refresh(self) -> dict:
        """Rewrites the expected summary from a replay of the recording: for a change in
        how the code reads the very same exchanges (a replay still answers only prompts
        that were recorded, so no model output is invented)."""
        with tempfile.TemporaryDirectory() as scratch:
            events = self.replay(Path(scratch))
        expected = summary(events)
        self.expected.write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n",
                                 encoding="utf-8")
        return expected

    def check_replay(self, events: list[pb.SearchEvent], reward_mode: int) -> None:
        """The replay is the recorded search, in `reward_mode`, event for event."""
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        assert summary(events) == json.loads(self.expected.read_text("utf-8"))
        started, result = events[0].started, events[-1].finished
        assert started.task_id == self.task
        assert started.environment.startswith(f"{self.environment}@")
        assert started.reward_mode == reward_mode
        assert result.model == f"replay:{self.model}" and result.status != pb.RUN_STATUS_ERROR

    def check_steps(self, events: list[pb.SearchEvent], parse) -> None:
        """Every stepped action reads as an action by `parse`, every value reply
        scored, and the search went back to an earlier snapshot."""
        added = of(events, "node_added")
        assert added and all(parse(n.action) for n in added if not n.invalid_action)
        assert events[-1].finished.value_parse_failures == 0
        assert any(r["request"]["purpose"] == "value" for r in self.exchanges())
        assert revisits(events), "an iteration stepped from a state older than the latest"

    def exchanges(self) -> list[dict]:
        return [json.loads(line) for line in self.recording.read_text("utf-8").splitlines()
                if line.strip()]


def of(events: list[pb.SearchEvent], kind: str) -> list:
    return [getattr(e, kind) for e in events if e.WhichOneof("event") == kind]


def summary(events: list[pb.SearchEvent]) -> dict:
    """What a replay must reproduce of the recorded run."""
    result = events[-1].finished
    return {
        "events": len(events),
        "status": pb.RunStatus.Name(result.status),
        "actions": list(result.actions),
        "final_observation": result.final_observation,
        "score": result.score.score,
        "success": result.score.success,
        "metrics": dict(sorted(result.score.metrics.items())),
        "iterations": result.iterations,
        "nodes": result.nodes,
        "added": [[n.id, n.action] for n in of(events, "node_added")],
        "selected": [s.node_id for s in of(events, "selected")],
        "reflections": [r.text for r in of(events, "reflection")],
        "model_calls": result.usage.calls,
        "calls_by_kind": dict(sorted(result.calls_by_kind.items())),
        "answer_reason": result.answer_reason,
        "reason": result.stop_reason or result.error,
    }


def revisits(events: list[pb.SearchEvent]) -> list[str]:
    """The nodes an iteration went back to: an iteration's selected node that is not
    where the iteration before it ended (its backpropagated leaf), so the environment
    stepped from a snapshot older than the latest one. In order."""
    back, last_end = [], None
    for event in events:
        kind = event.WhichOneof("event")
        if kind == "backpropagated":
            last_end = event.backpropagated.leaf_id
        elif kind == "selected" and last_end is not None and event.selected.node_id != last_end:
            back.append(event.selected.node_id)
            last_end = None
    return back
