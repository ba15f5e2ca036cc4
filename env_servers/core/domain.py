"""The `Domain` contract: what an environment must provide to be served.

A domain is the task-specific half of an environment server; the generic
`EnvironmentServicer` supplies snapshots, validation, limits and paging.

State is a JSON-serialisable dict holding the domain's WHOLE episode state:
the servicer signs it into snapshot blobs (or, with `blob_snapshots` False,
names it by replay) and hands it back to `step` and `score`. Domains must
treat a state they receive as immutable and return a new dict from `step`.

Every method may be sync or `async`. Sync methods run on the event loop unless
`offload_sync_calls` is true, in which case they run in a worker thread (set it
when calls may block, e.g. on a sandbox or the network).
"""

from __future__ import annotations

import abc
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from lats_runtime import reward_modes
from lats_runtime.readiness import Upstream
from lats_pb import environment_pb2

State = dict[str, Any]
"""A domain's episode state: JSON-serialisable, treated as immutable."""

TaskSpec = str | Mapping[str, Any]
"""A task id from `list_tasks`, or an inline task spec (a JSON object)."""

T = TypeVar("T")
MaybeAwaitable = T | Awaitable[T]

REWARD_MODES = reward_modes.NAMES


@dataclass(frozen=True)
class DomainDescription:
    """The parts of Describe a domain decides (the server adds its batch limit).

    `splits[0]` is the default split (used when ListTasks asks for "").
    `blob_snapshots` False: the servicer names states by replay (the reset and
    the actions since, re-played on every call) instead of signing them into
    blobs, e.g. for a state too costly to serialise.
    """

    capabilities: environment_pb2.Capabilities
    action_grammar: environment_pb2.ActionGrammar
    reward_range: environment_pb2.RewardRange
    prompt_pack: environment_pb2.PromptPack
    splits: tuple[str, ...]
    reward_mode: str
    max_steps: int = 8
    max_action_bytes: int = 4096
    max_option_bytes: int = 65536  # Reset options, all keys and values together
    facts: environment_pb2.EnvironmentFacts | None = None
    blob_snapshots: bool = True

    def __post_init__(self) -> None:
        if not self.splits:
            raise ValueError("a domain must declare at least one split")
        if self.reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {REWARD_MODES}")
        if self.max_steps < 1 or self.max_action_bytes < 1 or self.max_option_bytes < 1:
            raise ValueError("max_steps, max_action_bytes and max_option_bytes must be positive")

    @property
    def default_split(self) -> str:
        return self.splits[0]


@dataclass(frozen=True)
class ResetOutcome:
    """A new episode: its state, first observation and the task id it runs."""

    state: State
    observation: str
    task_id: str
    info: Mapping[str, Any] = field(default_factory=dict)
    state_key: str = ""     # the first state's key, as StepOutcome.state_key names states


@dataclass(frozen=True)
class StepOutcome:
    """The result of one action.

    When `invalid_action` is true the action could not be parsed or applied:
    `observation` says why, `reward` should be 0, and the servicer keeps the
    previous state whatever `state` holds (the step still counts).

    `answer_key` names the answer the step gives (environment.proto,
    StepResult.answer_key): equal keys mean the same answer; "" when the
    step gives none. It must not depend on hidden ground truth, and a domain
    that sets keys states `facts.answer_keys` in its description.

    `state_key` names the state the step leads to by what matters for the
    rest of the episode (StepResult.state_key): equal keys within one episode
    mean the same state, whichever steps led there (a step's free-text
    thought is no part of it); "" for none. ResetOutcome.state_key names the
    first state the same way. The servicer sends a digest of the domain's name, version and
    this key, so keys are equal on every replica of one version and never
    equal across versions. A domain that sets them states `facts.state_keys`.

    `answer_facets` are (name, value) pairs showing what the answer is made of
    (StepResult.answer_facets; e.g. probe calls and the values returned), in
    the order a planner should ask about them; sent only with an answer key.

    `failure_kind` names the kind of failure the new state shows, as a short
    lowercase word (StepResult.failure_kind; "" for none); kinds a refinement
    rarely fixes go in the pack's SearchHints.unrefined_failures.
    """

    state: State
    observation: str
    reward: float = 0.0
    terminated: bool = False
    invalid_action: bool = False
    info: Mapping[str, Any] = field(default_factory=dict)
    answer_key: str = ""
    state_key: str = ""
    answer_facets: tuple[tuple[str, str], ...] = ()
    failure_kind: str = ""


@dataclass(frozen=True)
class ScoreResult:
    """Final scoring of a state, in the domain's own scale."""

    score: float
    success: bool
    metrics: Mapping[str, float] = field(default_factory=dict)
    details: str = ""


class Domain(abc.ABC):
    """One kind of task, served by `EnvironmentServicer`.

    `settings_class` (optional) is a frozen dataclass of `setting()` fields
    (env_servers.core.domain_settings); a domain that declares one is built as
    `DomainClass(settings)` and `lats serve env NAME` offers its fields as flags.
    Without one it is built as `DomainClass()`.
    """

    name: ClassVar[str]
    version: ClassVar[str]
    description: ClassVar[str]
    offload_sync_calls: ClassVar[bool] = False
    settings_class: ClassVar[type | None] = None

    @abc.abstractmethod
    def describe(self) -> DomainDescription:
        """Capabilities, grammar, reward range, prompt pack, splits, limits."""

    @abc.abstractmethod
    def list_tasks(self, split: str) -> MaybeAwaitable[Sequence[str]]:
        """Task ids of `split`, in a stable order. Unknown split: `InvalidRequest`."""

    @abc.abstractmethod
    def reset(
        self, task: TaskSpec, seed: int, options: Mapping[str, str]
    ) -> MaybeAwaitable[ResetOutcome]:
        """Starts an episode on a task id (`TaskNotFound` if unknown) or an
        inline spec (`InvalidTask` if unusable). Unknown option: `InvalidRequest`."""

    @abc.abstractmethod
    def step(self, state: State, action: str) -> MaybeAwaitable[StepOutcome]:
        """Applies one action (already size-checked, never empty) to `state`."""

    @abc.abstractmethod
    def score(self, state: State) -> MaybeAwaitable[ScoreResult]:
        """Final scoring of `state` against the domain's ground truth."""

    def check_state(self, state: State) -> MaybeAwaitable[None]:
        """Raises `InvalidRequest` if `state`, decoded from a client's signed blob,
        cannot be a state of this domain. The default accepts any; the servicer
        also answers INVALID_ARGUMENT when a domain call fails on such a state."""
        return None

    def close(self) -> MaybeAwaitable[None]:
        """Releases domain-wide resources when the server stops."""
        return None

    def ready(self) -> MaybeAwaitable[None]:
        """Returns once the domain can answer calls (e.g. its catalog is built).

        Served domains report readiness NOT_SERVING on the gRPC health service
        until then, so readiness probes and balancers wait for it; calls made
        earlier wait too.
        """
        return None

    def upstreams(self) -> Sequence[Upstream]:
        """The services this domain cannot answer without (e.g. the server a
        bridge fronts). Once ready, the server's readiness is SERVING only while
        every one answers (`lats_runtime.readiness`). Default: none."""
        return ()
