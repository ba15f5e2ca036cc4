"""What a search reports as it grows. The search core calls an EventSink;
the planner service turns the calls into streamed SearchEvent messages."""

from __future__ import annotations

from collections.abc import Sequence

from google.protobuf import struct_pb2

from planner.tree import Node


class EventSink:
    """Receives search progress. Every method is optional (no-op here)."""

    def setup_started(self, option: str) -> None: ...

    def setup_finished(self, option: str, text: str, seconds: float) -> None: ...

    def reset_info(self, info: struct_pb2.Struct) -> None:
        """What the environment's Reset said besides the observation (before `started`)."""

    def started(self, task_id: str, task: str) -> None: ...

    def iteration(self, iteration: int) -> None: ...

    def selected(self, node: Node, iteration: int) -> None: ...

    def node_added(self, node: Node) -> None: ...

    def node_evaluated(self, node: Node) -> None: ...

    def terminal(self, node: Node) -> None: ...

    def reflection(self, node: Node, text: str) -> None: ...

    def backpropagated(self, leaf: Node, reward: float, path: Sequence[Node]) -> None: ...
