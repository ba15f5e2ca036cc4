"""`EnvironmentServicer`: the RPCs of environment.proto for any `Domain`.

The servicer owns everything generic: request validation, sessions (expiry,
capacity, per-session locking), step counting and truncation at `max_steps`,
signed snapshots with fork-on-Restore, the stateless Start / Transition pair
(on signed blobs, or on replays when the domain cannot snapshot), ListTasks
paging and Struct mapping. Step and Transition share one rule for advancing
an episode (`_advance`), so a transition is exactly Restore + Step + Snapshot.
Domain errors (`env_servers.core.errors`) become gRPC statuses.

Call `await start()` once the event loop runs (starts the expiry sweep) and
`await close()` on shutdown.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import math
import time
from collections.abc import Callable
from typing import Any

import grpc
from lats_pb import environment_pb2, environment_pb2_grpc
from lats_runtime import reward_modes
from lats_runtime.finite import non_finite_at
from lats_runtime.quoting import quoted

from env_servers.core.answer_keys import checked_answer_key
from env_servers.core.domain import Domain, ResetOutcome, State
from env_servers.core.errors import EnvError, FailedPrecondition, InvalidRequest
from env_servers.core.metrics import SESSIONS_OPEN, STEP_SECONDS, STEPS, step_outcome
from env_servers.core.paging import page
from env_servers.core.sessions import SessionStore
from env_servers.core.settings import EnvSettings
from env_servers.core.snapshots import SnapshotCodec, SnapshotPayload, snapshot_key
from env_servers.core.structs import from_struct, to_struct

log = logging.getLogger(__name__)

MAX_MESSAGE_CHARS = 1_000

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


class EnvironmentServicer(environment_pb2_grpc.EnvironmentServicer):
    """Serves one `Domain` under `EnvSettings`."""

    def __init__(self, domain: Domain, settings: EnvSettings | None = None):
        settings = settings or EnvSettings()
        self.domain = domain
        self.description = domain.describe()
        self.max_steps = settings.max_steps or self.description.max_steps
        self.max_action_bytes = settings.max_action_bytes or self.description.max_action_bytes
        self.max_batch_actions = settings.max_batch_actions
        self.sessions = SessionStore(settings.max_sessions, settings.session_ttl_seconds)
        self.codec = SnapshotCodec(
            snapshot_key(settings.snapshot_key), domain.name, domain.version
        )
        self._describe_response = self._build_describe(settings)
        sessions = self.sessions
        SESSIONS_OPEN.labels(domain.name).set_function(lambda: len(sessions))

    async def start(self) -> None:
        self.sessions.start_sweeper()

    async def close(self) -> None:
        await self.sessions.stop_sweeper()
        self.sessions.clear()
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
        self._task_of(request)  # a bad request is INVALID_ARGUMENT even on a full server
        self.sessions.ensure_room()
        outcome = await self._start(request)
        session = self.sessions.open(outcome.state)
        return environment_pb2.ResetResponse(
            session_id=session.id,
            observation=outcome.observation,
            task_id=outcome.task_id,
            info=to_struct(outcome.info),
        )

    @_rpc
    async def Step(self, request, context):
        self._check_action(request.action)
        session = self.sessions.get(request.session_id)
        async with session.lock:
            if session.closed:  # closed or expired while this call waited
                self.sessions.get(session.id)
            before = SnapshotPayload(session.state, session.steps, session.terminated,
                                     session.foreign)
            response, after = await self._advance(before, request.action)
            session.state, session.steps, session.terminated = (
                after.state, after.steps, after.terminated)
            self.sessions.touch(session)
        return response

    @_rpc
    async def Start(self, request, context):
        outcome = await self._start(request)
        return environment_pb2.StartResponse(
            observation=outcome.observation,
            task_id=outcome.task_id,
            info=to_struct(outcome.info),
            blob=self._blob(SnapshotPayload(outcome.state, 0, False)),
        )

    @_rpc
    async def Transition(self, request, context):
        actions = list(request.actions)
        self._check_batch(actions)
        before = await self._episode_of(request.WhichOneof("state"), request)
        self._check_not_over(before)
        results = await asyncio.gather(*(self._advance(before, action) for action in actions))
        return environment_pb2.TransitionResponse(results=[
            environment_pb2.TransitionResult(step=response, blob=self._blob(after))
            for response, after in results
        ])

    @_rpc
    async def Snapshot(self, request, context):
        self._require("snapshot", "Snapshot")
        session = self.sessions.get(request.session_id)
        async with session.lock:
            payload = SnapshotPayload(session.state, session.steps, session.terminated)
        return environment_pb2.SnapshotResponse(blob=self.codec.encode(payload))

    @_rpc
    async def Restore(self, request, context):
        self._require("snapshot", "Restore")
        payload = await self._decoded(request.blob)
        self.sessions.ensure_room()
        observation = await self._on_state(payload.foreign, self.domain.observation_of,
                                           payload.state)
        session = self.sessions.open(payload.state, payload.steps, payload.terminated,
                                     foreign=True)
        return environment_pb2.RestoreResponse(session_id=session.id, observation=observation)

    @_rpc
    async def Close(self, request, context):
        self.sessions.close(request.session_id)
        return environment_pb2.CloseResponse()

    @_rpc
    async def Score(self, request, context):
        self._require("score", "Score")
        state, foreign = await self._state_to_score(request)
        result = await self._on_state(foreign, self.domain.score, state)
        return environment_pb2.ScoreResponse(
            score=result.score,
            success=result.success,
            metrics={k: float(v) for k, v in result.metrics.items()},
            details=result.details,
        )

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

    async def _decoded(self, blob: bytes) -> SnapshotPayload:
        """A verified blob whose state the domain accepts; else InvalidRequest."""
        payload = self.codec.decode(blob)
        await self._on_state(True, self.domain.check_state, payload.state)
        return payload

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
                f"the blob's state does not fit {self.domain.name} v{self.domain.version} "
                f"({type(error).__name__}: {quoted(str(error))}); send a blob this "
                "environment's Start, Transition or Snapshot returned") from error

    def _task_of(self, request) -> str | dict:
        which = request.WhichOneof("task")
        if which == "task_id" and request.task_id:
            return request.task_id
        if which == "inline_task":
            self._require("inline_tasks", "Reset with inline_task")
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
            raise InvalidRequest("Transition needs at least one action in `actions`")
        if len(actions) > self.max_batch_actions:
            raise InvalidRequest(
                f"Transition carries {len(actions)} actions, more than "
                f"limits.max_batch_actions={self.max_batch_actions}; split the batch"
            )
        for action in actions:
            self._check_action(action)

    def _check_not_over(self, episode: SnapshotPayload) -> None:
        if episode.terminated or episode.steps >= self.max_steps:
            how = "terminated" if episode.terminated else f"hit max_steps={self.max_steps}"
            raise FailedPrecondition(
                f"the episode is over ({how} after {episode.steps} steps); start a new "
                "episode (Reset / Start) or continue from an earlier state"
            )

    async def _advance(
        self, before: SnapshotPayload, action: str
    ) -> tuple[environment_pb2.StepResponse, SnapshotPayload]:
        """One action on one episode state: what Step answers and the state after.

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
        response = environment_pb2.StepResponse(
            observation=outcome.observation,
            reward=outcome.reward,
            terminated=after.terminated,
            truncated=not after.terminated and after.steps >= self.max_steps,
            invalid_action=outcome.invalid_action,
            info=to_struct(outcome.info),
            steps=after.steps,
            answer_key="" if outcome.invalid_action else checked_answer_key(outcome.answer_key),
        )
        return response, after

    async def _start(self, request) -> ResetOutcome:
        """A new episode for a Reset- or Start-shaped request."""
        task = self._task_of(request)
        return await self._call(self.domain.reset, task, request.seed, dict(request.options))

    def _blob(self, episode: SnapshotPayload) -> bytes:
        """The signed state, or b"" when the domain cannot snapshot."""
        if not self.description.capabilities.snapshot:
            return b""
        return self.codec.encode(episode)

    async def _episode_of(self, which: str | None, request) -> SnapshotPayload:
        """The state a Transition or Score request names by `which` of its oneof."""
        if which == "blob":
            self._require("snapshot", "a state given as a blob")
            return await self._decoded(request.blob)
        if which == "replay":
            return await self._replay(request.replay)
        raise InvalidRequest("name the state: set blob (from Start or Transition) or replay")

    async def _replay(self, replay) -> SnapshotPayload:
        """Re-plays a replay's actions from its start; every action counts."""
        for action in replay.actions:
            self._check_action(action)
        outcome = await self._start(replay.start)
        episode = SnapshotPayload(outcome.state, 0, False)
        for action in replay.actions:
            _, episode = await self._advance(episode, action)
        return episode

    def _require(self, capability: str, operation: str) -> None:
        if not getattr(self.description.capabilities, capability):
            raise FailedPrecondition(
                f"{operation} needs capabilities.{capability}, which "
                f"{self.domain.name!r} does not support; see Describe"
            )

    async def _state_to_score(self, request) -> tuple[State, bool]:
        """The state a Score request names, and whether it came from a client's blob."""
        which = request.WhichOneof("target")
        if which == "session_id":
            session = self.sessions.get(request.session_id)
            async with session.lock:
                return session.state, session.foreign
        if which in ("blob", "replay"):
            episode = await self._episode_of(which, request)
            return episode.state, episode.foreign
        raise InvalidRequest("Score needs a target: set session_id, blob or replay")

    def _build_describe(self, settings: EnvSettings) -> environment_pb2.DescribeResponse:
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
                max_sessions=settings.max_sessions,
                session_ttl_seconds=math.ceil(settings.session_ttl_seconds),
                max_batch_actions=self.max_batch_actions,
            ),
            prompt_pack=d.prompt_pack,
            splits=list(d.splits),
            reward_mode=reward_modes.to_wire(d.reward_mode),
            **facts,
        )
