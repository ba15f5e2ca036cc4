"""A run's search progress as numbered SearchEvent messages (the Solve stream's events)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from lats_pb import planner_pb2 as pb

from planner.convert import node_message
from planner.events import EventSink
from planner.live_runs import LiveRun
from planner.tree import Node


class QueueSink(EventSink):
    """Turns search callbacks into numbered SearchEvent messages: queued for the
    Solve stream, published to the run's watchers, and kept in its live record.

    `started` is filled in from `started_fields` (the effective config, the
    environment, its reward mode and the value's second term).
    """

    def __init__(self, live: LiveRun, queue: asyncio.Queue, **started_fields):
        self.live = live
        self.run_id = live.run.run_id
        self.queue = queue
        self.seq = 0
        self._started_fields = started_fields
        self._reset_info = None           # the Reset's info (a Struct), once reported

    def emit(self, **event) -> None:
        self.seq += 1
        message = pb.SearchEvent(run_id=self.run_id, seq=self.seq, **event)
        self.live.run.last_seq = self.seq
        self.queue.put_nowait(message)
        self.live.feed.publish(message)

    def setup_started(self, option: str) -> None:
        self.emit(setup_started=pb.SetupStarted(option=option))

    def setup_finished(self, option: str, text: str, seconds: float) -> None:
        self.live.run.setup = text
        self.emit(setup_finished=pb.SetupFinished(option=option, text=text, seconds=seconds))

    def reset_info(self, info) -> None:
        self._reset_info = info

    def started(self, task_id: str, task: str) -> None:
        self.live.run.task_id = task_id
        started = pb.RunStarted(task_id=task_id, task=task, **self._started_fields)
        if self._reset_info is not None:
            started.reset_info.CopyFrom(self._reset_info)
        self.emit(started=started)

    def iteration(self, iteration: int) -> None:
        self.emit(iteration=pb.IterationStarted(iteration=iteration))

    def selected(self, node: Node, iteration: int) -> None:
        self.emit(selected=pb.NodeSelected(node_id=node.id, iteration=iteration))

    def node_added(self, node: Node) -> None:
        self.emit(node_added=node_message(node))

    def node_evaluated(self, node: Node) -> None:
        self.emit(node_evaluated=node_message(node))

    def terminal(self, node: Node) -> None:
        self.emit(terminal=node_message(node))

    def reflection(self, node: Node, text: str) -> None:
        self.live.run.reflection_notes.add(node_id=node.id, text=text)
        self.emit(reflection=pb.ReflectionAdded(node_id=node.id, text=text))

    def backpropagated(self, leaf: Node, reward: float, path: Sequence[Node]) -> None:
        self.emit(backpropagated=pb.Backpropagated(
            leaf_id=leaf.id, reward=reward, path=[node_message(n) for n in path]))
