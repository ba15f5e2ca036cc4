"""A search as it grows, as typed events (one class per SearchEvent kind).

Solve streams, in order: SetupStarted/SetupFinished (only for environments
with a setup generation), Started, then per iteration IterationStarted,
NodeSelected, NodeAdded and NodeEvaluated for each child, TerminalReached,
ReflectionAdded, Backpropagated; the last event is always Finished, which
carries the Result. Watching a run starts with a Snapshot of it. Every event
has the run's id, its sequence number `seq` (1, 2, ...) and `.message`, the
SearchEvent (or RunUpdate) it came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lats_pb import planner_pb2 as pb
from lats_runtime.reward_modes import name_of

from lats_client.types import Node, Result, Run, message_dict


@dataclass(frozen=True, kw_only=True)
class Event:
    run_id: str
    seq: int
    message: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, kw_only=True)
class SetupStarted(Event):
    """The environment's one-off setup generation began (e.g. model-written tests)."""

    option: str


@dataclass(frozen=True, kw_only=True)
class SetupFinished(Event):
    option: str
    text: str
    seconds: float


@dataclass(frozen=True, kw_only=True)
class Started(Event):
    """The episode began: the task, the environment, and the effective settings."""

    task_id: str
    task: str
    environment: str
    reward_mode: str
    second_term: str
    config: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class IterationStarted(Event):
    iteration: int


@dataclass(frozen=True, kw_only=True)
class NodeSelected(Event):
    node_id: str
    iteration: int


@dataclass(frozen=True, kw_only=True)
class NodeAdded(Event):
    node: Node


@dataclass(frozen=True, kw_only=True)
class NodeEvaluated(Event):
    node: Node


@dataclass(frozen=True, kw_only=True)
class TerminalReached(Event):
    node: Node


@dataclass(frozen=True, kw_only=True)
class ReflectionAdded(Event):
    node_id: str
    text: str


@dataclass(frozen=True, kw_only=True)
class Backpropagated(Event):
    leaf_id: str
    reward: float
    path: tuple[Node, ...]


@dataclass(frozen=True, kw_only=True)
class Finished(Event):
    """The last event of a search."""

    result: Result


@dataclass(frozen=True, kw_only=True)
class Snapshot(Event):
    """A watched run as it stood when watching began (`seq` is its last event's)."""

    run: Run


def _started(e: pb.RunStarted) -> dict:
    return dict(task_id=e.task_id, task=e.task, environment=e.environment,
                reward_mode=name_of(e.reward_mode), second_term=e.second_term or "sc",
                config=message_dict(e.config))


def event_from_message(event: pb.SearchEvent) -> Event:
    """The typed event of a SearchEvent (an unknown kind from a newer planner is a
    bare Event)."""
    kind = event.WhichOneof("event")
    base = dict(run_id=event.run_id, seq=event.seq, message=event)
    body = getattr(event, kind) if kind else None
    if kind == "setup_started":
        return SetupStarted(**base, option=body.option)
    if kind == "setup_finished":
        return SetupFinished(**base, option=body.option, text=body.text, seconds=body.seconds)
    if kind == "started":
        return Started(**base, **_started(body))
    if kind == "iteration":
        return IterationStarted(**base, iteration=body.iteration)
    if kind == "selected":
        return NodeSelected(**base, node_id=body.node_id, iteration=body.iteration)
    if kind == "node_added":
        return NodeAdded(**base, node=Node.from_message(body))
    if kind == "node_evaluated":
        return NodeEvaluated(**base, node=Node.from_message(body))
    if kind == "terminal":
        return TerminalReached(**base, node=Node.from_message(body))
    if kind == "reflection":
        return ReflectionAdded(**base, node_id=body.node_id, text=body.text)
    if kind == "backpropagated":
        return Backpropagated(**base, leaf_id=body.leaf_id, reward=body.reward,
                              path=tuple(Node.from_message(n) for n in body.path))
    if kind == "finished":
        return Finished(**base, result=Result.from_message(body))
    return Event(**base)


def update_from_message(update: pb.RunUpdate) -> Event:
    """The typed event of a WatchRun update: a Snapshot, or the next search event."""
    if update.WhichOneof("update") == "snapshot":
        run = update.snapshot
        return Snapshot(run_id=run.run_id, seq=run.last_seq, message=update,
                        run=Run.from_message(run))
    return event_from_message(update.event)
