"""What the search needs from an environment: start an episode, branch a state, score.

The search core depends on this interface only. `planner.environment_client`
implements it over environment.proto (stateless Start / Transition by
default, or sessions); tests may implement it in memory.

A state is an `EnvState`: a signed blob from the server, or, for a server
that cannot snapshot, the task and the actions taken since its start (which
the server re-plays). Either way the planner holds every node's state itself,
so any replica of the environment can serve any call.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass

from google.protobuf import struct_pb2

from lats_pb import environment_pb2 as env_pb


@dataclass(frozen=True)
class TaskRef:
    """The task an episode plays: an id or an inline spec, with seed and options."""

    task_id: str = ""
    inline_task: struct_pb2.Struct | None = None
    options: tuple[tuple[str, str], ...] = ()
    seed: int = 0

    def start_request(self) -> env_pb.StartRequest:
        request = env_pb.StartRequest(seed=self.seed, options=dict(self.options))
        if self.inline_task is not None:
            request.inline_task.CopyFrom(self.inline_task)
        else:
            request.task_id = self.task_id
        return request

    def reset_request(self) -> env_pb.ResetRequest:
        request = env_pb.ResetRequest()
        request.ParseFromString(self.start_request().SerializeToString())  # same fields
        return request

    def with_option(self, key: str, value: str) -> TaskRef:
        return TaskRef(self.task_id, self.inline_task,
                       tuple(dict(self.options, **{key: value}).items()), self.seed)


@dataclass(frozen=True)
class EnvState:
    """Where an episode stands: `blob`, or (no snapshots) `task` and `actions` to re-play."""

    blob: bytes = b""
    task: TaskRef | None = None
    actions: tuple[str, ...] = ()

    def replay(self) -> env_pb.Replay:
        return env_pb.Replay(start=self.task.start_request(), actions=list(self.actions))


@dataclass(frozen=True)
class Started:
    observation: str
    task_id: str
    state: EnvState


@dataclass(frozen=True)
class Stepped:
    """One action's result (what Step answers) and the state it leads to.

    `answer_key` is the environment's identity of the answer the step gives
    (equal keys, same answer; "" for none)."""

    observation: str
    reward: float
    terminated: bool
    truncated: bool
    invalid_action: bool
    state: EnvState
    answer_key: str = ""

    @classmethod
    def refused(cls, state: EnvState, why: str) -> Stepped:
        """An action the environment would not take (e.g. too long): an invalid step
        that leaves `state` as it was."""
        return cls(why, 0.0, False, False, True, state)


class Environment(abc.ABC):
    """An environment server as the search sees it."""

    address: str = ""
    description: env_pb.DescribeResponse | None = None

    @abc.abstractmethod
    async def describe(self) -> env_pb.DescribeResponse:
        """Describe (kept in `self.description`)."""

    @abc.abstractmethod
    async def start(self, task: TaskRef) -> Started:
        """A new episode of `task`."""

    @abc.abstractmethod
    async def transition(self, state: EnvState, actions: Sequence[str]) -> list[Stepped]:
        """Each action applied on its own to `state`; results in the order of `actions`."""

    @abc.abstractmethod
    async def score(self, state: EnvState) -> env_pb.ScoreResponse:
        """The hidden-ground-truth score of `state` (only after a search)."""

    async def aclose(self) -> None:
        """Releases connections."""
