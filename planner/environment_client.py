"""The planner's view of an environment server: the protocol, with deadlines.

Every call carries a deadline. `fork` gives a new session in a node's state:
by Restore when the server supports snapshots, otherwise by Reset and
re-playing the node's actions (slower, but any environment can be searched).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import grpc
from google.protobuf import struct_pb2

from lats_pb import environment_pb2 as env_pb
from lats_pb import environment_pb2_grpc as env_grpc


@dataclass(frozen=True)
class TaskRef:
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


class EnvironmentClient:
    """Async client for one environment server address."""

    def __init__(self, address: str, timeout: float = 60.0,
                 max_message_bytes: int = 16 * 1024 * 1024):
        self.address = address
        self.timeout = timeout
        self._channel = grpc.aio.insecure_channel(
            address,
            options=[("grpc.max_receive_message_length", max_message_bytes),
                     ("grpc.max_send_message_length", max_message_bytes)],
        )
        self._stub = env_grpc.EnvironmentStub(self._channel)
        self.description: env_pb.DescribeResponse | None = None

    async def describe(self) -> env_pb.DescribeResponse:
        self.description = await self._stub.Describe(env_pb.DescribeRequest(), timeout=self.timeout)
        return self.description

    async def reset(self, task: TaskRef) -> env_pb.ResetResponse:
        return await self._stub.Reset(task.reset_request(), timeout=self.timeout)

    async def step(self, session_id: str, action: str) -> env_pb.StepResponse:
        return await self._stub.Step(
            env_pb.StepRequest(session_id=session_id, action=action), timeout=self.timeout)

    async def snapshot(self, session_id: str) -> bytes:
        response = await self._stub.Snapshot(
            env_pb.SnapshotRequest(session_id=session_id), timeout=self.timeout)
        return response.blob

    async def restore(self, blob: bytes) -> str:
        response = await self._stub.Restore(env_pb.RestoreRequest(blob=blob), timeout=self.timeout)
        return response.session_id

    async def close(self, session_id: str) -> None:
        """Closes a session; an already-gone session is not an error here."""
        try:
            await self._stub.Close(env_pb.CloseRequest(session_id=session_id), timeout=self.timeout)
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.NOT_FOUND:
                raise

    async def score_blob(self, blob: bytes) -> env_pb.ScoreResponse:
        return await self._stub.Score(env_pb.ScoreRequest(blob=blob), timeout=self.timeout)

    async def score_session(self, session_id: str) -> env_pb.ScoreResponse:
        return await self._stub.Score(env_pb.ScoreRequest(session_id=session_id), timeout=self.timeout)

    @property
    def supports_snapshot(self) -> bool:
        return bool(self.description and self.description.capabilities.snapshot)

    async def fork(self, blob: bytes, task: TaskRef, actions: Sequence[str]) -> str:
        """A new session in the state reached by `actions` (saved as `blob`)."""
        if self.supports_snapshot:
            return await self.restore(blob)
        session = (await self.reset(task)).session_id
        for action in actions:
            await self.step(session, action)
        return session

    async def aclose(self) -> None:
        await self._channel.close()
