"""What the search needs from an environment: start an episode, branch a state, score.

The search core depends on this interface only. `planner.environment_client`
implements it over environment.proto (lats.environment.v2: Reset, Step and
Score on snapshots); tests may implement it in memory.

A state is an `EnvState`: the snapshot the server returned (a signed blob, or a
replay for a server that cannot serialise its state), kept opaque and passed
back unchanged. The planner holds every node's snapshot itself, so any replica
of the environment can serve any call.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass, field

from google.protobuf import struct_pb2

from lats_pb import environment_pb2 as env_pb
from lats_runtime.option_limits import options_bytes


def complete_answer_actions(description: env_pb.DescribeResponse) -> bool:
    """The environment says each action is a complete answer attempt (a whole
    program): a failed attempt is not terminal, and the next step is another
    attempt, not a continuation. DescribeResponse.facts says it; servers that
    predate the facts say it with the search hint reflect_each_failure (which
    is what SearchConfig.complete_answer_actions is taken from)."""
    return (description.facts.complete_answer_actions
            or description.prompt_pack.search_hints.reflect_each_failure)


@dataclass(frozen=True)
class TaskRef:
    """The task an episode plays: an id or an inline spec, with seed and options."""

    task_id: str = ""
    inline_task: struct_pb2.Struct | None = None
    options: tuple[tuple[str, str], ...] = ()
    seed: int = 0

    def reset_request(self) -> env_pb.ResetRequest:
        request = env_pb.ResetRequest(seed=self.seed, options=dict(self.options))
        if self.inline_task is not None:
            request.inline_task.CopyFrom(self.inline_task)
        else:
            request.task_id = self.task_id
        return request

    def with_option(self, key: str, value: str, max_option_bytes: int = 0) -> TaskRef:
        """This task with option `key` set to `value`; with `max_option_bytes` (the
        server's limits.max_option_bytes), `value` is cut, on a character boundary,
        so that all the options fit."""
        options = dict(self.options)
        options.pop(key, None)
        if max_option_bytes:
            room = max(0, max_option_bytes - options_bytes(options) - len(key.encode()))
            value = value.encode()[:room].decode("utf-8", errors="ignore")
        options[key] = value
        return TaskRef(self.task_id, self.inline_task, tuple(options.items()), self.seed)


@dataclass(frozen=True)
class EnvState:
    """Where an episode stands: the environment's snapshot, opaque to the planner."""

    snapshot: env_pb.Snapshot


@dataclass(frozen=True)
class Started:
    observation: str
    task_id: str
    state: EnvState
    info: struct_pb2.Struct = field(default_factory=struct_pb2.Struct)  # the Reset's info
    state_key: str = ""      # the first state's key (ResetResponse.state_key)


@dataclass(frozen=True)
class Stepped:
    """One action's result (a Step result) and the state it leads to.

    `answer_key` is the environment's identity of the answer the step gives
    (equal keys, same answer; "" for none); `state_key` its identity of the
    state the step leads to (equal keys from one state, same state)."""

    observation: str
    reward: float
    terminated: bool
    truncated: bool
    invalid_action: bool
    state: EnvState
    answer_key: str = ""
    state_key: str = ""
    answer_facets: tuple[tuple[str, str], ...] = ()     # (name, value), in the server's order
    failure_kind: str = ""                  # the kind of failure the state shows ("" = none)

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
        """A new episode of `task` (Reset)."""

    @abc.abstractmethod
    async def transition(self, state: EnvState, actions: Sequence[str]) -> list[Stepped]:
        """Each action applied on its own to `state` (Step); results in the order of `actions`."""

    @abc.abstractmethod
    async def score(self, state: EnvState) -> env_pb.ScoreResponse:
        """The hidden-ground-truth score of `state` (only after a search)."""

    async def aclose(self) -> None:
        """Releases connections."""
