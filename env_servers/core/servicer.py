"""`EnvironmentServicer`: the RPCs of environment.proto for any `Domain`.

The servicer owns everything generic: request validation, step counting and
truncation at `max_steps`, snapshots (signed blobs, or replays when the
domain names its states by replay), the batch of a Step, ListTasks paging and
Struct mapping. No session lives here: every call carries its state, so any
replica sharing the snapshot key answers any call alike. Domain errors
(`env_servers.core.errors`) become gRPC statuses.

Call `await close()` on shutdown (it closes the domain).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc
from lats_pb import environment_pb2, environment_pb2_grpc
from lats_runtime import reward_modes
from lats_runtime.finite import non_finite_at
from lats_runtime.option_limits import options_bytes
from lats_runtime.quoting import quoted

from env_servers.core.answer_keys import answer_key, checked_answer_key, checked_facets
from env_servers.core.domain import Domain, ResetOutcome, State
from env_servers.core.errors import EnvError, FailedPrecondition, InvalidRequest
from env_servers.core.metrics import STEP_SECONDS, STEPS, step_outcome
from env_servers.core.paging import page
from env_servers.core.settings import EnvSettings
from env_servers.core.snapshots import SnapshotCodec, SnapshotPayload, snapshot_key
from env_servers.core.structs import from_struct, to_struct

log = logging.getLogger(__name__)

MAX_MESSAGE_CHARS = 1_000
MAX_KIND_CHARS = 32               # StepResult.failure_kind, clipped

# What a domain raises when handed a state it never made (a missing key, a value
# of the wrong type or range).
_STATE_ERRORS = (LookupError, TypeError, ValueError, AttributeError, ArithmeticError)


def _rpc(method: Callable) -> Callable:
    """Turns `EnvError`s into typed gRPC errors and unexpected ones into INTERNAL."""

    @functools.wraps(method)
    async def handler(self, request, context):
        try:
            return await method(self, request, context)
        except EnvError as error:
            await context.abort(error.code, _bounded(str(error)))
        except grpc.aio.AbortError:
            raise
        except Exception as error:  # a domain bug: report it, keep serving
            log.exception("%s failed", method.__name__)
            await context.abort(
                grpc.StatusCode.INTERNAL,
                _bounded(f"environment error in {method.__name__}: {type(error).__name__}: {error}"),
            )

    return handler


def _bounded(message: str) -> str:
    """A status message short enough for any client's metadata limit (a domain may
    have quoted a client's input in full)."""
    if len(message) <= MAX_MESSAGE_CHARS:
        return message
    return message[:MAX_MESSAGE_CHARS] + f"... (cut at {MAX_MESSAGE_CHARS} of {len(message)} characters)"


@dataclass(frozen=True)
class _Point:
    """A snapshot, decoded: the episode there, and (replay snapshots) how it was reached."""

    episode: SnapshotPayload
    replay: environment_pb2.Replay | None = None


class EnvironmentServicer(environment_pb2_grpc.EnvironmentServicer):
    """Serves one `Domain` under `EnvSettings`."""

    def __init__(self, domain: Domain, settings: EnvSettings | None = None):
        settings = settings or EnvSettings()
        self.domain = domain
        self.description = domain.describe()
        self.max_steps = settings.max_steps or self.description.max_steps
        self.max_action_bytes = settings.max_action_bytes or self.description.max_action_bytes
        self.max_option_bytes = settings.max_option_bytes or self.description.max_option_bytes
        self.max_batch_actions = settings.max_batch_actions
        self.blobs = self.description.blob_snapshots
        self.codec = (SnapshotCodec(snapshot_key(settings.snapshot_key), domain.name,
                                    domain.version) if self.blobs else None)
        self._describe_response = self._build_describe()

    async def close(self) -> None:
        await self._call(self.domain.close)

    # --- RPCs -----------------------------------------------------------------

    @_rpc
    async def Describe(self, request, context):
        return self._describe_response

    @_rpc
    async def ListTasks(self, request, context):
        split = request.split or self.description.default_split
        if split not in self.description.splits:
            raise InvalidRequest(
                f"unknown split {quoted(split)}; Describe lists "
                f"{', '.join(self.description.splits)}"
            )
        task_ids = await self._call(self.domain.list_tasks, split)
        ids, next_token = page(task_ids, split, request.page_token, request.page_size)
        return environment_pb2.ListTasksResponse(
            task_ids=ids, next_page_token=next_token, total=len(task_ids)
        )

    @_rpc
    async def Reset(self, request, context):
        outcome = await self._reset(request)
        first = _Point(SnapshotPayload(outcome.state, 0, False),
                       environment_pb2.Replay(reset=request) if not self.blobs else None)
        return environment_pb2.ResetResponse(
            observation=outcome.observation,
            task_id=outcome.task_id,
            info=to_struct(outcome.info),
            snapshot=self._snapshot(first),
            state_key=self._state_key(outcome.state_key),
        )

    @_rpc
    async def Step(self, request, context):
        actions = list(request.actions)
        self._check_batch(actions)
        before = await self._point_of(request, "Step")
        self._check_not_over(before.episode)
        results = await asyncio.gather(*(self._advance(before.episode, action)
                                         for action in actions))
        response = environment_pb2.StepResponse()
        for action, (result, after) in zip(actions, results):
            result.snapshot.CopyFrom(self._snapshot(self._next(before, after, action)))
            response.results.append(result)
        return response

    @_rpc
    async def Score(self, request, context):
        self._require("score", "Score")
        point = await self._point_of(request, "Score")
        result = await self._on_state(point.episode.foreign, self.domain.score,
                                      point.episode.state)
        return environment_pb2.ScoreResponse(
            score=result.score,
            success=result.success,
            metrics={k: float(v) for k, v in result.metrics.items()},
            details=result.details,
        )

    async def episode_at(self, snapshot: environment_pb2.Snapshot) -> SnapshotPayload:
        """The episode a snapshot names, verified as Step verifies it (for in-process
        callers, e.g. the OpenEnv app); a snapshot this server would refuse raises
        the same `EnvError`."""
        request = environment_pb2.ScoreRequest(snapshot=snapshot)
        return (await self._point_of(request, "a snapshot")).episode

    # --- helpers --------------------------------------------------------------

    async def _call(self, function: Callable, *args: Any) -> Any:
        """Runs a domain method, sync or async, without stalling the loop."""
        if inspect.iscoroutinefunction(function):
            return await function(*args)
        if self.domain.offload_sync_calls:
            result = await asyncio.to_thread(function, *args)
        else:
            result = function(*args)
        if inspect.isawaitable(result):
            result = await result
        return result

    async def _on_state(self, foreign: bool, function: Callable, *args: Any) -> Any:
        """A domain call on a state; if the state came from a client's blob, a
        state the domain cannot work with is INVALID_ARGUMENT, not INTERNAL.

        A blob verifies only that a holder of the key made it: a leaked key, or a
        replica of another build, can send well-signed nonsense.
        """
        if not foreign:
            return await self._call(function, *args)
        try:
            return await self._call(function, *args)
        except EnvError:
            raise
        except _STATE_ERRORS as error:
            raise InvalidRequest(
                f"the snapshot's state does not fit {self.domain.name} v{self.domain.version} "
                f"({type(error).__name__}: {quoted(str(error))}); send a snapshot this "
                "environment's Reset or Step returned") from error

    def _task_of(self, request) -> str | dict:
        which = request.WhichOneof("task")
        if which == "task_id" and request.task_id:
            return request.task_id
        if which == "inline_task":
            self._require("inline_tasks", "a Reset with inline_task")
            bad = non_finite_at(request.inline_task)
            if bad is not None:
                raise InvalidRequest(f"inline_task.{bad} is not a finite number (NaN and "
                                     "Infinity have no JSON form); send finite numbers only")
            return from_struct(request.inline_task)
        raise InvalidRequest("name a task: set task_id (see ListTasks) or inline_task")

    def _check_action(self, action: str) -> None:
        if not action.strip():
            examples = self.description.action_grammar.examples
            hint = f"e.g. {examples[0]!r}" if examples else "see Describe.action_grammar"
            raise InvalidRequest(f"action is empty; send one action as text, {hint}")
        size = len(action.encode("utf-8"))
        if size > self.max_action_bytes:
            raise InvalidRequest(
                f"action is {size} bytes, more than max_action_bytes="
                f"{self.max_action_bytes}; send one shorter action"
            )

    def _check_batch(self, actions: list[str]) -> None:
        if not actions:
            raise InvalidRequest("Step needs at least one action in `actions`")
        if len(actions) > self.max_batch_actions:
            raise InvalidRequest(
                f"Step carries {len(actions)} actions, more than "
                f"limits.max_batch_actions={self.max_batch_actions}; split the batch"
            )
        for action in actions:
            self._check_action(action)

    def _check_not_over(self, episode: SnapshotPayload) -> None:
        if episode.terminated or episode.steps >= self.max_steps:
            how = "terminated" if episode.terminated else f"hit max_steps={self.max_steps}"
            raise FailedPrecondition(
                f"the episode is over ({how} after {episode.steps} steps); Reset for a new "
                "episode or continue from an earlier snapshot"
            )

    async def _advance(
        self, before: SnapshotPayload, action: str
    ) -> tuple[environment_pb2.StepResult, SnapshotPayload]:
        """One action on one episode state: its step result (without the new
        snapshot) and the episode after it.

        An invalid action keeps the domain state but still counts as a step.
        """
        self._check_not_over(before)
        started = time.perf_counter()
        outcome = await self._on_state(before.foreign, self.domain.step, before.state, action)
        STEP_SECONDS.labels(self.domain.name).observe(time.perf_counter() - started)
        STEPS.labels(self.domain.name,
                     step_outcome(outcome.invalid_action, bool(outcome.terminated))).inc()
        state = before.state if outcome.invalid_action else outcome.state
        after = SnapshotPayload(state, before.steps + 1, bool(outcome.terminated),
                                before.foreign)
        result = environment_pb2.StepResult(
            observation=outcome.observation,
            reward=outcome.reward,
            terminated=after.terminated,
            truncated=not after.terminated and after.steps >= self.max_steps,
            invalid_action=outcome.invalid_action,
            info=to_struct(outcome.info),
            steps=after.steps,
            answer_key="" if outcome.invalid_action else checked_answer_key(outcome.answer_key),
            state_key="" if outcome.invalid_action else self._state_key(outcome.state_key),
            answer_facets=[] if outcome.invalid_action or not outcome.answer_key else
            checked_facets(outcome.answer_facets),
            failure_kind="" if outcome.invalid_action else outcome.failure_kind[:MAX_KIND_CHARS],
        )
        return result, after

    async def _reset(self, request) -> ResetOutcome:
        """A new episode for a ResetRequest."""
        task = self._task_of(request)
        options = dict(request.options)
        self._check_options(options)
        return await self._call(self.domain.reset, task, request.seed, options)

    def _check_options(self, options: dict[str, str]) -> None:
        size = options_bytes(options)
        if size > self.max_option_bytes:
            largest = max(options, key=lambda key: len(options[key].encode("utf-8")))
            raise InvalidRequest(
                f"Reset options are {size} bytes in all (keys and values), more than "
                f"max_option_bytes={self.max_option_bytes} (Describe.limits); the largest is "
                f"{quoted(largest)}: send a shorter one")

    def _state_key(self, key: str) -> str:
        """The domain's state key as sent: a digest of its name, version and the key,
        equal on every replica of one version and never across versions ("" stays "")."""
        return answer_key("state", self.domain.name, self.domain.version, key) if key else ""

    def _snapshot(self, point: _Point) -> environment_pb2.Snapshot:
        """The snapshot a client gets for `point`: its signed blob, or its replay."""
        if point.replay is not None:
            return environment_pb2.Snapshot(replay=point.replay)
        return environment_pb2.Snapshot(blob=self.codec.encode(point.episode))

    @staticmethod
    def _next(before: _Point, after: SnapshotPayload, action: str) -> _Point:
        if before.replay is None:
            return _Point(after)
        replay = environment_pb2.Replay(reset=before.replay.reset,
                                        actions=[*before.replay.actions, action])
        return _Point(after, replay)

    async def _point_of(self, request, method: str) -> _Point:
        """The state a Step or Score request's snapshot names."""
        which = request.snapshot.WhichOneof("kind") if request.HasField("snapshot") else None
        made = "blob" if self.blobs else "replay"
        if which is None:
            raise InvalidRequest(f"{method} needs a snapshot: pass the one Reset or Step "
                                 "returned")
        if which != made:
            raise InvalidRequest(
                f"this server's snapshots are {made}s, and this one is a {which}; pass a "
                "snapshot this environment's Reset or Step returned, unchanged")
        if which == "blob":
            payload = self.codec.decode(request.snapshot.blob)
            await self._on_state(True, self.domain.check_state, payload.state)
            return _Point(payload)
        return await self._replayed(request.snapshot.replay)

    async def _replayed(self, replay: environment_pb2.Replay) -> _Point:
        """Re-plays a replay's actions from its reset; every action counts."""
        for action in replay.actions:
            self._check_action(action)
        outcome = await self._reset(replay.reset)
        episode = SnapshotPayload(outcome.state, 0, False)
        for number, action in enumerate(replay.actions, start=1):
            if episode.terminated or episode.steps >= self.max_steps:
                raise InvalidRequest(
                    f"the replay goes on after its episode ended (action {number} of "
                    f"{len(replay.actions)}); pass a snapshot this environment returned")
            _, episode = await self._advance(episode, action)
        return _Point(episode, replay)

    def _require(self, capability: str, operation: str) -> None:
        if not getattr(self.description.capabilities, capability):
            raise FailedPrecondition(
                f"{operation} needs capabilities.{capability}, which "
                f"{self.domain.name!r} does not support; see Describe"
            )

    def _build_describe(self) -> environment_pb2.DescribeResponse:
        d = self.description
        facts = {"facts": d.facts} if d.facts is not None else {}
        return environment_pb2.DescribeResponse(
            name=self.domain.name,
            version=self.domain.version,
            description=self.domain.description,
            capabilities=d.capabilities,
            action_grammar=d.action_grammar,
            reward_range=d.reward_range,
            limits=environment_pb2.Limits(
                max_steps=self.max_steps,
                max_action_bytes=self.max_action_bytes,
                max_batch_actions=self.max_batch_actions,
                max_option_bytes=self.max_option_bytes,
            ),
            prompt_pack=d.prompt_pack,
            splits=list(d.splits),
            reward_mode=reward_modes.to_wire(d.reward_mode),
            **facts,
        )
