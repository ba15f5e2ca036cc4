"""Typed views of an environment server's answers (lats.environment.v2).

Every class is a frozen dataclass built from the protobuf message; the
message stays reachable as `.message` (left out of equality and repr) for
tools that want the wire form, e.g. the prompt pack in `Description.message`.
`info` objects are plain dicts and are left out of equality too: the protocol
lets a server put anything there (timings, ...), so two equal results may
differ in it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from google.protobuf import json_format

from lats_pb import environment_pb2 as env_pb
from lats_runtime.reward_modes import name_of

from lats_client.types import Score


def _dict(struct) -> dict[str, Any]:
    return json_format.MessageToDict(struct)


@dataclass(frozen=True)
class RewardRange:
    """Rewards lie in min..max; a terminal reward >= success_threshold is a success."""

    min: float
    max: float
    success_threshold: float


@dataclass(frozen=True)
class Limits:
    """An episode ends by `max_steps`; an action is at most `max_action_bytes` (UTF-8);
    one `step_all` carries at most `max_batch_actions`; Reset options hold at most
    `max_option_bytes` in all (0: no limit declared)."""

    max_steps: int
    max_action_bytes: int
    max_batch_actions: int
    max_option_bytes: int


@dataclass(frozen=True)
class Description:
    """What the environment is (Describe). `reward_mode` is "none", "oracle" or
    "honest"; `splits[0]` is the default split; `facts` are EnvironmentFacts by name."""

    name: str
    version: str
    description: str
    splits: tuple[str, ...]
    action_description: str
    action_examples: tuple[str, ...]
    action_pattern: str
    reward_range: RewardRange
    reward_mode: str
    limits: Limits
    inline_tasks: bool
    scores: bool
    facts: dict[str, bool]
    message: env_pb.DescribeResponse = field(compare=False, repr=False)

    @classmethod
    def from_message(cls, reply: env_pb.DescribeResponse) -> Description:
        grammar, rewards, limits = reply.action_grammar, reply.reward_range, reply.limits
        return cls(
            name=reply.name, version=reply.version, description=reply.description,
            splits=tuple(reply.splits), action_description=grammar.description,
            action_examples=tuple(grammar.examples), action_pattern=grammar.pattern,
            reward_range=RewardRange(rewards.min, rewards.max, rewards.success_threshold),
            reward_mode=name_of(reply.reward_mode),
            limits=Limits(limits.max_steps, limits.max_action_bytes, limits.max_batch_actions,
                          limits.max_option_bytes),
            inline_tasks=reply.capabilities.inline_tasks, scores=reply.capabilities.score,
            facts={f.name: getattr(reply.facts, f.name)
                   for f in env_pb.EnvironmentFacts.DESCRIPTOR.fields},
            message=reply)


@dataclass(frozen=True)
class TaskPage:
    """One page of a split's task ids; `next_page_token` is "" on the last page."""

    task_ids: tuple[str, ...]
    next_page_token: str
    total: int


@dataclass(frozen=True)
class State:
    """A point of an episode: step from it again, any number of times, to revert.

    `observation` is what the agent sees there, `steps` the steps that led to it,
    `done` whether the episode ended there (a step from it is refused). The
    snapshot is opaque: the server made it, and only passing it back means
    anything.
    """

    task_id: str
    observation: str
    steps: int
    done: bool
    snapshot: env_pb.Snapshot = field(repr=False)
    info: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class Transition:
    """One action from a state: what it showed, its reward, and the `state` it led to
    (the same state after an invalid action, which still counts as a step).

    `done` is `terminated or truncated`. `answer_key` and `state_key` name the
    answer given and the state reached, where the server states them (its
    `facts`); `answer_facets` are (name, value) pairs of what the answer is made
    of; `failure_kind` names the kind of failure the state shows ("" for none).
    """

    action: str
    observation: str
    reward: float
    terminated: bool
    truncated: bool
    invalid_action: bool
    steps: int
    answer_key: str
    state_key: str
    answer_facets: tuple[tuple[str, str], ...]
    failure_kind: str
    state: State
    info: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    message: env_pb.StepResult = field(default=None, compare=False, repr=False)

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated

    @classmethod
    def from_message(cls, action: str, task_id: str, result: env_pb.StepResult) -> Transition:
        info = _dict(result.info)
        ended = result.terminated or result.truncated
        return cls(
            action=action, observation=result.observation, reward=result.reward,
            terminated=result.terminated, truncated=result.truncated,
            invalid_action=result.invalid_action, steps=result.steps,
            answer_key=result.answer_key, state_key=result.state_key,
            answer_facets=tuple((f.name, f.value) for f in result.answer_facets),
            failure_kind=result.failure_kind,
            state=State(task_id, result.observation, result.steps, ended, result.snapshot, info),
            info=info, message=result)


def started_state(reply: env_pb.ResetResponse) -> State:
    """The first state of an episode, from Reset's answer."""
    return State(reply.task_id, reply.observation, 0, False, reply.snapshot, _dict(reply.info))


def score_of(reply: env_pb.ScoreResponse) -> Score:
    return Score(score=reply.score, success=reply.success, details=reply.details,
                 metrics=dict(reply.metrics))
