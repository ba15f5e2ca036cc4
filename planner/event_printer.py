"""Human-readable rendering of a streamed search (what `lats solve` prints)."""

from __future__ import annotations

from typing import TextIO

from google.protobuf import json_format
from lats_pb import planner_pb2 as pb
from lats_runtime.reward_modes import name_of
from lats_runtime.run_status import RunStatus, from_wire

_PRINTED = (RunStatus.SOLVED, RunStatus.FAILED, RunStatus.ERROR, RunStatus.RUNNING)


def _status_label(value: int) -> str:
    """A finished search's status in capitals ("SOLVED"); "?" for any other."""
    status = from_wire(value)
    return status.upper() if status in _PRINTED else "?"


def _short(text: str, width: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


class EventPrinter:
    """Prints one line (or a few) per SearchEvent, indented by tree depth."""

    def __init__(self, out: TextIO):
        self.out = out
        self.second_term = "sc"      # from RunStarted: "sc" or "reward" (a pass rate)

    def _line(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def print(self, event: pb.SearchEvent) -> None:
        kind = event.WhichOneof("event")
        handler = getattr(self, f"_on_{kind}", None)
        if handler is not None:
            handler(getattr(event, kind), event)

    def _on_setup_started(self, e: pb.SetupStarted, event: pb.SearchEvent) -> None:
        self._line(f"run {event.run_id}: the model writes the task's {e.option} first "
                   "(one call before the search; minutes on a CPU) ...")

    def _on_setup_finished(self, e: pb.SetupFinished, event: pb.SearchEvent) -> None:
        self._line(f"{e.option} written in {e.seconds:.1f}s (as the model wrote it; what the "
                   "environment keeps follows):")
        for line in e.text.strip().splitlines()[:20]:
            self._line(f"  | {_short(line, 100)}")

    def _on_started(self, e: pb.RunStarted, event: pb.SearchEvent) -> None:
        c = e.config
        self.second_term = e.second_term or "sc"
        self._line(f"run {event.run_id} on {e.environment} task {e.task_id} "
                   f"(method {c.method or 'lats'}, mode {name_of(e.reward_mode) or 'unstated'}; n={c.n_samples} k={c.iterations} "
                   f"d={c.max_depth} w={c.exploration_weight:g} lambda={c.value_weight:g})")
        self._line(f"task: {_short(e.task, 200)}")
        self._reset_lists(e.reset_info)

    def _reset_lists(self, info) -> None:
        """The Reset's list-valued facts (the code runner: the tests the search checks
        programs with, and the model's asserts it left out, each with why)."""
        for key, value in sorted(json_format.MessageToDict(info).items()):
            if isinstance(value, list) and value:
                self._line(f"{key.replace('_', ' ')} ({len(value)}):")
                for item in value[:20]:
                    self._line(f"  | {_short(str(item), 100)}")

    def _on_iteration(self, e: pb.IterationStarted, event) -> None:
        self._line(f"— iteration {e.iteration}")

    def _on_selected(self, e: pb.NodeSelected, event) -> None:
        self._line(f"  select {e.node_id} → expand")

    def _on_node_added(self, n: pb.Node, event) -> None:
        pad = "  " * n.depth
        flag = (" [invalid]" if n.invalid_action else
                f" [loop: back to {n.returns_to}]" if n.returns_to else "")
        self._line(f"{pad}+ {n.id} ×{n.sample_count} {_short(n.action, 70)!r} → "
                   f"{_short(n.observation, 60)}{flag}")

    def _on_node_evaluated(self, n: pb.Node, event) -> None:
        pad = "  " * n.depth
        lm = f"lm {n.lm_score:.2f} " if n.lm_score >= 0 else ""
        second = (f"reward {n.reward:.2f}" if self.second_term == "reward"
                  else f"sc {n.sc_score:.2f}")
        self._line(f"{pad}  {n.id} value {n.value:.2f} ({lm}{second})")

    def _on_terminal(self, n: pb.Node, event) -> None:
        self._line(f"{'  ' * n.depth}! terminal {n.id} reward {n.reward:g}: {_short(n.observation, 70)}")

    def _on_reflection(self, e: pb.ReflectionAdded, event) -> None:
        self._line(f"  reflection on {e.node_id}: {_short(e.text, 160)}")

    def _on_backpropagated(self, e: pb.Backpropagated, event) -> None:
        stats = " ".join(f"{n.id}:N={n.visits},V={n.value:.2f}" for n in e.path)
        self._line(f"  backprop r={e.reward:g}: {stats}")

    def _on_finished(self, r: pb.RunResult, event) -> None:
        self._line(f"== {_status_label(r.status)} after {r.iterations} iterations, "
                   f"{r.nodes_expanded} expansions, {r.nodes} nodes ({r.error or r.stop_reason})")
        for i, action in enumerate(r.actions, start=1):
            self._line(f"   {i}. {action}")
        if r.final_observation:
            self._line(f"   final: {_short(r.final_observation, 120)}")
        if r.scored:
            self._line(f"   verified by the environment: score {r.score.score:g} "
                       f"success={r.score.success} {_short(r.score.details, 80)}")
        u = r.usage
        self._line(f"   cost: {u.calls} LLM calls, {u.prompt_tokens} prompt + "
                   f"{u.completion_tokens} completion tokens, {r.wall_seconds:.1f}s wall "
                   f"({r.model_seconds:.1f}s waiting for the model); "
                   f"model {r.model or '?'}, mode {name_of(r.reward_mode) or 'unstated'}")
