"""The `Environment` interface over environment.proto (lats.environment.v2).

`EnvironmentClient` plays with Reset, Step and Score on snapshots: no session
lives on any server, every call is idempotent and retried on another replica
when one dies or stalls, and one expansion's n actions go out as one Step
(split by the server's `limits.max_batch_actions`).

A server that does not serve lats.environment.v2 fails `describe` with
FAILED_PRECONDITION saying which version it speaks (a retired lats.v1 server
answers that version's Describe), never with a bare UNIMPLEMENTED.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import grpc
from lats_pb import environment_pb2 as env_pb
from lats_pb import environment_pb2_grpc as env_grpc

from lats_runtime import environment_versions
from lats_runtime.calls import RetryPolicy, ServiceCallError, ServiceClient
from planner.environment import Environment, EnvState, Started, Stepped, TaskRef

__all__ = ["EnvState", "EnvironmentClient", "ServiceCallError", "TaskRef",
           "connect_environment"]

DEFAULT_RETRY = RetryPolicy(window_seconds=30.0)
# Describe opens a search: when no replica answers then, say so soon.
DESCRIBE_WINDOW_SECONDS = 5.0
PROBE_SECONDS = 5.0


class EnvironmentClient(Environment):
    """Reset / Step / Score over any number of replicas sharing a snapshot key."""

    def __init__(self, address: str, timeout: float = 60.0, retry: RetryPolicy = DEFAULT_RETRY,
                 max_message_bytes: int = 16 * 1024 * 1024):
        self.address = address
        self.client = ServiceClient("environment", address, env_grpc.EnvironmentStub,
                                    timeout=timeout, policy=retry,
                                    max_message_bytes=max_message_bytes)
        self.description: env_pb.DescribeResponse | None = None

    @property
    def max_batch(self) -> int:
        limit = self.description.limits.max_batch_actions if self.description else 0
        return limit or 1

    async def describe(self) -> env_pb.DescribeResponse:
        policy = self.client.policy
        window = min(policy.window_seconds, DESCRIBE_WINDOW_SECONDS)
        try:
            self.description = await self.client.unary(
                "Describe", env_pb.DescribeRequest(),
                policy=RetryPolicy(window, policy.initial_backoff, policy.max_backoff,
                                   policy.codes))
        except ServiceCallError as error:
            if error.code() != grpc.StatusCode.UNIMPLEMENTED:
                raise
            raise await self._version_mismatch(error) from error
        return self.description

    async def start(self, task: TaskRef) -> Started:
        reply = await self.client.unary("Reset", task.reset_request())
        return Started(reply.observation, reply.task_id, EnvState(reply.snapshot), reply.info,
                       reply.state_key)

    async def transition(self, state: EnvState, actions: Sequence[str]) -> list[Stepped]:
        chunks = [actions[i:i + self.max_batch] for i in range(0, len(actions), self.max_batch)]
        replies = await asyncio.gather(*(
            _each_or_refused(lambda batch: self._step(state, batch), state, chunk)
            for chunk in chunks))
        return [stepped for reply in replies for stepped in reply]

    async def _step(self, state: EnvState, actions: Sequence[str]) -> list[Stepped]:
        request = env_pb.StepRequest(snapshot=state.snapshot, actions=list(actions))
        reply = await self.client.unary("Step", request)
        if len(reply.results) != len(actions):
            raise ServiceCallError("environment", self.address, "Step",
                                   grpc.StatusCode.DATA_LOSS, f"{len(reply.results)} results for "
                                   f"{len(actions)} actions", 1)
        return [_stepped(result) for result in reply.results]

    async def score(self, state: EnvState) -> env_pb.ScoreResponse:
        return await self.client.unary("Score", env_pb.ScoreRequest(snapshot=state.snapshot))

    async def _version_mismatch(self, error: ServiceCallError) -> ServiceCallError:
        """FAILED_PRECONDITION naming the protocol version the server speaks, if any."""
        answered = None
        for service in environment_versions.RETIRED_SERVICES:
            probe = self.client.channel.unary_unary(f"/{service}/Describe")
            try:
                await probe(b"", timeout=PROBE_SECONDS)
            except grpc.aio.AioRpcError:
                continue
            answered = service
            break
        message = environment_versions.missing_service_message(self.address, answered,
                                                               error.server_details)
        return ServiceCallError("environment", self.address, "Describe",
                                grpc.StatusCode.FAILED_PRECONDITION, message, 1)

    async def aclose(self) -> None:
        await self.client.aclose()


def connect_environment(address: str, timeout: float = 60.0,
                        retry: RetryPolicy = DEFAULT_RETRY) -> EnvironmentClient:
    """The environment client for `address` (one replica or many)."""
    return EnvironmentClient(address, timeout=timeout, retry=retry)


def _stepped(result: env_pb.StepResult) -> Stepped:
    return Stepped(result.observation, result.reward, result.terminated, result.truncated,
                   result.invalid_action, EnvState(result.snapshot), result.answer_key,
                   result.state_key,
                   tuple((facet.name, facet.value) for facet in result.answer_facets),
                   result.failure_kind)


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
