"""The `Environment` interface over environment.proto.

`StatelessEnvironment` (the default) plays with Start and Transition: no
session lives on any server, every call is idempotent and retried on another
replica when one dies or stalls, and one expansion's n actions go out as one
Transition (split by the server's `limits.max_batch_actions`).

`SessionEnvironment` plays the older way, 4 calls per child (Restore, Step,
Snapshot, Close; Reset and re-played Steps without snapshots). Sessions live
in one replica's memory, so it needs a single replica, and only its stateless
calls are retried. It stays for servers without Transition and for measuring
the difference.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import grpc
from lats_pb import environment_pb2 as env_pb
from lats_pb import environment_pb2_grpc as env_grpc

from lats_runtime.calls import NO_RETRY, RetryPolicy, ServiceCallError, ServiceClient
from planner.environment import Environment, EnvState, Started, Stepped, TaskRef

__all__ = ["ENV_PROTOCOLS", "EnvState", "ServiceCallError", "SessionEnvironment",
           "StatelessEnvironment", "TaskRef", "connect_environment"]

ENV_PROTOCOLS = ("stateless", "sessions")
DEFAULT_RETRY = RetryPolicy(window_seconds=30.0)
# Describe opens a search: when no replica answers then, say so soon.
DESCRIBE_WINDOW_SECONDS = 5.0


class StatelessEnvironment(Environment):
    """Start / Transition / Score over any number of replicas sharing a snapshot key."""

    def __init__(self, address: str, timeout: float = 60.0, retry: RetryPolicy = DEFAULT_RETRY,
                 max_message_bytes: int = 16 * 1024 * 1024):
        self.address = address
        self.client = ServiceClient("environment", address, env_grpc.EnvironmentStub,
                                    timeout=timeout, policy=retry,
                                    max_message_bytes=max_message_bytes)
        self.description: env_pb.DescribeResponse | None = None

    @property
    def supports_snapshot(self) -> bool:
        return bool(self.description and self.description.capabilities.snapshot)

    @property
    def max_batch(self) -> int:
        limit = self.description.limits.max_batch_actions if self.description else 0
        return limit or 1

    async def describe(self) -> env_pb.DescribeResponse:
        policy = self.client.policy
        window = min(policy.window_seconds, DESCRIBE_WINDOW_SECONDS)
        self.description = await self.client.unary(
            "Describe", env_pb.DescribeRequest(),
            policy=RetryPolicy(window, policy.initial_backoff, policy.max_backoff, policy.codes))
        return self.description

    async def start(self, task: TaskRef) -> Started:
        reply = await self.client.unary("Start", task.start_request())
        return Started(reply.observation, reply.task_id, self._state(reply.blob, task, ()))

    async def transition(self, state: EnvState, actions: Sequence[str]) -> list[Stepped]:
        chunks = [actions[i:i + self.max_batch] for i in range(0, len(actions), self.max_batch)]
        replies = await asyncio.gather(*(
            _each_or_refused(lambda batch: self._transition(state, batch), state, chunk)
            for chunk in chunks))
        return [stepped for reply in replies for stepped in reply]

    async def _transition(self, state: EnvState, actions: Sequence[str]) -> list[Stepped]:
        request = env_pb.TransitionRequest(actions=list(actions))
        if state.blob:
            request.blob = state.blob
        else:
            request.replay.CopyFrom(state.replay())
        reply = await self.client.unary("Transition", request)
        if len(reply.results) != len(actions):
            raise ServiceCallError("environment", self.address, "Transition",
                                   grpc.StatusCode.DATA_LOSS, f"{len(reply.results)} results for "
                                   f"{len(actions)} actions", 1)
        return [_stepped(result.step, self._state(result.blob, state.task,
                                                  (*state.actions, action)))
                for result, action in zip(reply.results, actions)]

    async def score(self, state: EnvState) -> env_pb.ScoreResponse:
        request = env_pb.ScoreRequest()
        if state.blob:
            request.blob = state.blob
        else:
            request.replay.CopyFrom(state.replay())
        return await self.client.unary("Score", request)

    def _state(self, blob: bytes, task: TaskRef | None, actions: tuple[str, ...]) -> EnvState:
        """A blob when the server snapshots, else what re-plays the state."""
        if blob or self.supports_snapshot:
            return EnvState(blob=blob)
        return EnvState(task=task, actions=actions)

    async def aclose(self) -> None:
        await self.client.aclose()


class SessionEnvironment(StatelessEnvironment):
    """The same interface through sessions: Reset/Restore, Step, Snapshot, Close per child."""

    async def start(self, task: TaskRef) -> Started:
        reply = await self.client.unary("Reset", task.reset_request(), policy=NO_RETRY)
        try:
            blob = await self._snapshot(reply.session_id) if self.supports_snapshot else b""
        finally:
            await self._close(reply.session_id)
        return Started(reply.observation, reply.task_id, self._state(blob, task, ()))

    async def transition(self, state: EnvState, actions: Sequence[str]) -> list[Stepped]:
        async def one(batch: Sequence[str]) -> list[Stepped]:
            return [await self._step_one(state, batch[0])]

        return list(await asyncio.gather(*(
            self._first(_each_or_refused(one, state, [action])) for action in actions)))

    @staticmethod
    async def _first(results) -> Stepped:
        return (await results)[0]

    async def _step_one(self, state: EnvState, action: str) -> Stepped:
        session = await self._fork(state)
        try:
            step = await self.client.unary(
                "Step", env_pb.StepRequest(session_id=session, action=action), policy=NO_RETRY)
            blob = await self._snapshot(session) if self.supports_snapshot else b""
        finally:
            await self._close(session)
        return _stepped(step, self._state(blob, state.task, (*state.actions, action)))

    async def score(self, state: EnvState) -> env_pb.ScoreResponse:
        if state.blob:
            return await super().score(state)
        session = await self._fork(state)
        try:
            return await self.client.unary("Score", env_pb.ScoreRequest(session_id=session),
                                           policy=NO_RETRY)
        finally:
            await self._close(session)

    async def _fork(self, state: EnvState) -> str:
        """A new session in `state`: Restore, or Reset and re-play the actions."""
        if state.blob:
            reply = await self.client.unary("Restore", env_pb.RestoreRequest(blob=state.blob),
                                            policy=NO_RETRY)
            return reply.session_id
        session = (await self.client.unary("Reset", state.task.reset_request(),
                                           policy=NO_RETRY)).session_id
        for action in state.actions:
            await self.client.unary("Step", env_pb.StepRequest(session_id=session, action=action),
                                    policy=NO_RETRY)
        return session

    async def _snapshot(self, session: str) -> bytes:
        reply = await self.client.unary("Snapshot", env_pb.SnapshotRequest(session_id=session),
                                        policy=NO_RETRY)
        return reply.blob

    async def _close(self, session: str) -> None:
        """Closes a session; one already gone is not an error here."""
        try:
            await self.client.unary("Close", env_pb.CloseRequest(session_id=session),
                                    policy=NO_RETRY)
        except ServiceCallError as error:
            if error.code() != grpc.StatusCode.NOT_FOUND:
                raise


def connect_environment(address: str, protocol: str = "stateless", timeout: float = 60.0,
                        retry: RetryPolicy = DEFAULT_RETRY) -> StatelessEnvironment:
    """The client for `protocol` ("stateless" or "sessions") at `address`."""
    if protocol not in ENV_PROTOCOLS:
        raise ValueError(f"unknown environment protocol {protocol!r}; use one of {ENV_PROTOCOLS}")
    kind = StatelessEnvironment if protocol == "stateless" else SessionEnvironment
    return kind(address, timeout=timeout, retry=retry)


def _stepped(step: env_pb.StepResponse, state: EnvState) -> Stepped:
    return Stepped(step.observation, step.reward, step.terminated, step.truncated,
                   step.invalid_action, state, step.answer_key)


async def _each_or_refused(step_batch, state: EnvState, actions: Sequence[str]) -> list[Stepped]:
    """`step_batch(actions)`; when the environment refuses the batch as invalid
    (INVALID_ARGUMENT: an action too long, say), each action is tried alone and
    the ones it still refuses become invalid steps that say why, so one bad
    sample never ends a search."""
    try:
        return await step_batch(actions)
    except ServiceCallError as error:
        if error.code() != grpc.StatusCode.INVALID_ARGUMENT:
            raise
        if len(actions) == 1:
            return [Stepped.refused(state, f"The environment refused this action: "
                                           f"{error.server_details}")]
    results = await asyncio.gather(*(_each_or_refused(step_batch, state, [action])
                                     for action in actions))
    return [stepped for result in results for stepped in result]
