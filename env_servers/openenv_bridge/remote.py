"""Sessions on an OpenEnv server, and a pool that keeps them at known states.

An OpenEnv server keeps each episode in the memory of one WebSocket session
(OpenEnv's own client, `GenericEnvClient`, speaks it). It cannot snapshot, so
a state of ours is a replay; replaying from the reset at every step would cost
O(depth) remote steps. `SessionPool` keeps idle sessions keyed by the state
they are in (the task and the actions taken), so a search that steps on from
the state it just reached reuses that session; any other state is rebuilt by
a fresh reset and a replay.

At most `max_open` sessions are open at once (the OpenEnv server's
`max_concurrent_envs` bounds them too); to open another, the least recently
used idle one is closed, or the caller waits for one to be released.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

# Error codes of OpenEnv's WebSocket protocol (openenv.core.env_server.types.WSErrorCode).
VALIDATION_ERROR = "VALIDATION_ERROR"
CAPACITY_REACHED = "CAPACITY_REACHED"

StateKey = tuple[str, ...]


class RemoteError(Exception):
    """An error message from the OpenEnv server: `code` is its WSErrorCode."""

    def __init__(self, code: str, message: str, errors: Any = None):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.errors = errors


class RemoteUnavailable(Exception):
    """The OpenEnv server cannot be reached, or did not answer in time."""


@dataclass(frozen=True)
class Answer:
    """One reset or step result: the observation's fields, its reward and done."""

    observation: dict
    reward: float | None
    done: bool


def client_class():
    """OpenEnv's GenericEnvClient, raising RemoteError with the server's error code."""
    from openenv.core.generic_client import GenericEnvClient

    class BridgeClient(GenericEnvClient):
        async def _send_and_receive(self, message: dict) -> dict:
            await self._send(message)
            response = await self._receive()
            if response.get("type") == "error":
                data = response.get("data") or {}
                raise RemoteError(str(data.get("code", "UNKNOWN")),
                                  str(data.get("message", "")), data.get("errors"))
            return response

    return BridgeClient


class RemoteSession:
    """One WebSocket session on the OpenEnv server; `last` is its latest answer."""

    def __init__(self, url: str, connect_timeout: float, message_timeout: float):
        self._client = client_class()(base_url=url, connect_timeout_s=connect_timeout,
                                      message_timeout_s=message_timeout)
        self.last: Answer | None = None
        self.idle_since = 0.0

    async def connect(self) -> None:
        await self._call(self._client.connect())

    async def reset(self, **kwargs: Any) -> Answer:
        return await self._answer(self._client.reset(**kwargs))

    async def step(self, action: dict) -> Answer:
        return await self._answer(self._client.step(action))

    async def close(self) -> None:
        try:
            await asyncio.wait_for(self._client.close(), 5)
        except Exception:  # noqa: BLE001 - closing is best effort
            pass

    async def _answer(self, call) -> Answer:
        result = await self._call(call)
        self.last = Answer(dict(result.observation or {}), result.reward, bool(result.done))
        return self.last

    @staticmethod
    async def _call(call):
        try:
            return await call
        except RemoteError:
            raise
        except (ConnectionError, OSError, asyncio.TimeoutError) as error:
            raise RemoteUnavailable(str(error) or type(error).__name__) from error
        except Exception as error:  # websockets' ConnectionClosed and the like
            if type(error).__module__.startswith("websockets"):
                raise RemoteUnavailable(f"{type(error).__name__}: {error}") from error
            raise


class SessionPool:
    """Open sessions, idle ones keyed by their state; see the module docstring."""

    def __init__(self, url: str, max_open: int, connect_timeout: float = 10.0,
                 message_timeout: float = 30.0, idle_seconds: float = 120.0):
        self.url = url
        self.max_open = max_open
        self._timeouts = (connect_timeout, message_timeout)
        self._idle_seconds = idle_seconds
        self._idle: OrderedDict[StateKey, RemoteSession] = OrderedDict()
        self._open = 0
        self._changed: asyncio.Condition | None = None

    @property
    def open_sessions(self) -> int:
        return self._open

    def take(self, key: StateKey) -> RemoteSession | None:
        """The idle session at exactly `key`, now the caller's; None if there is none."""
        session = self._idle.pop(key, None)
        return session

    async def new(self) -> RemoteSession:
        """A new connected session (waits for room; closes idle ones to make it)."""
        changed = self._condition()
        async with changed:
            await self._expire_idle()
            while self._open >= self.max_open:
                if self._idle:
                    _, oldest = self._idle.popitem(last=False)
                    await self._close(oldest)
                    continue
                await changed.wait()
            self._open += 1
        session = RemoteSession(self.url, *self._timeouts)
        try:
            await session.connect()
        except BaseException:
            await self.discard(session, already_closed=True)
            raise
        return session

    async def park(self, key: StateKey, session: RemoteSession) -> None:
        """Keeps `session` (at state `key`) for whoever steps on from there."""
        changed = self._condition()
        async with changed:
            previous = self._idle.pop(key, None)
            if previous is not None:
                await self._close(previous)
            session.idle_since = time.monotonic()
            self._idle[key] = session
            changed.notify_all()

    async def discard(self, session: RemoteSession, already_closed: bool = False) -> None:
        """Closes a session whose state is unknown or no longer needed."""
        changed = self._condition()
        async with changed:
            await self._close(session, closed=already_closed)
            changed.notify_all()

    async def close_all(self) -> None:
        changed = self._condition()
        async with changed:
            while self._idle:
                await self._close(self._idle.popitem()[1])
            changed.notify_all()

    # ----------------------------------------------------------------- helpers
    def _condition(self) -> asyncio.Condition:
        if self._changed is None:       # made on first use, in the serving event loop
            self._changed = asyncio.Condition()
        return self._changed

    async def _close(self, session: RemoteSession, closed: bool = False) -> None:
        self._open -= 1
        if not closed:
            await session.close()

    async def _expire_idle(self) -> None:
        cutoff = time.monotonic() - self._idle_seconds
        for key in [k for k, s in self._idle.items() if s.idle_since < cutoff]:
            await self._close(self._idle.pop(key))
