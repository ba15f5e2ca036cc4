"""In-memory session store: id -> episode state, with idle expiry and a cap.

Contract:
  * ids are unguessable (`secrets.token_urlsafe`);
  * a session idle for longer than `ttl_seconds` is gone: `get` raises
    `NotFound`, and a background sweep frees it even if nobody asks;
  * `open` raises `CapacityExhausted` when `max_sessions` are open (after
    dropping expired ones);
  * each session carries an `asyncio.Lock`; callers hold it while they read and
    replace the state so concurrent Steps on one session run one at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from lats_runtime.quoting import quoted

from env_servers.core.domain import State
from env_servers.core.errors import CapacityExhausted, NotFound

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Session:
    """One live episode. Replace `state` wholesale; never mutate it."""

    id: str
    state: State
    steps: int
    terminated: bool
    last_used: float
    closed: bool = False
    foreign: bool = False           # restored from a blob: its state came from a client
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


def _unknown_session(session_id: str) -> NotFound:
    return NotFound(
        f"session {quoted(session_id)} expired, was closed or never existed; "
        "call Reset for a new episode or Restore a snapshot blob"
    )


class SessionStore:
    """Holds the open sessions of one server process."""

    def __init__(
        self,
        max_sessions: int,
        ttl_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ):
        if max_sessions < 1 or ttl_seconds <= 0:
            raise ValueError("max_sessions and ttl_seconds must be positive")
        self.max_sessions = max_sessions
        self.ttl_seconds = ttl_seconds
        self._clock = clock
        self._sessions: dict[str, Session] = {}
        self._sweeper: asyncio.Task | None = None

    def __len__(self) -> int:
        return len(self._sessions)

    def ensure_room(self) -> None:
        """Raises `CapacityExhausted` unless one more session fits."""
        if len(self._sessions) >= self.max_sessions:
            self.sweep()
        if len(self._sessions) >= self.max_sessions:
            raise CapacityExhausted(
                f"{len(self._sessions)} sessions open; Close finished sessions "
                "or raise --max-sessions"
            )

    def open(self, state: State, steps: int = 0, terminated: bool = False,
             foreign: bool = False) -> Session:
        """Adds a session; `CapacityExhausted` when the store is full."""
        self.ensure_room()
        session_id = secrets.token_urlsafe(18)
        session = Session(session_id, state, steps, terminated, self._clock(), foreign=foreign)
        self._sessions[session_id] = session
        return session

    def get(self, session_id: str) -> Session:
        """The live session `session_id`, marked as used now; else `NotFound`."""
        session = self._sessions.get(session_id)
        now = self._clock()
        if session is None or self._expired(session, now):
            if session is not None:
                self._drop(session)
            raise _unknown_session(session_id)
        session.last_used = now
        return session

    def touch(self, session: Session) -> None:
        """Marks `session` as used now (e.g. after a slow call on it)."""
        session.last_used = self._clock()

    def close(self, session_id: str) -> None:
        """Ends a session; `NotFound` if it is not open (so closing twice fails)."""
        self._drop(self.get(session_id))

    def sweep(self) -> int:
        """Drops every expired session; returns how many were dropped."""
        now = self._clock()
        expired = [s for s in self._sessions.values() if self._expired(s, now)]
        for session in expired:
            self._drop(session)
        if expired:
            log.info("expired %d idle session(s)", len(expired))
        return len(expired)

    def clear(self) -> None:
        for session in list(self._sessions.values()):
            self._drop(session)

    def start_sweeper(self, interval_seconds: float | None = None) -> None:
        """Starts the background expiry sweep on the running event loop."""
        if self._sweeper is not None:
            return
        interval = interval_seconds or min(max(self.ttl_seconds / 2, 0.25), 30.0)
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep_every(interval))

    async def stop_sweeper(self) -> None:
        if self._sweeper is None:
            return
        self._sweeper.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._sweeper
        self._sweeper = None

    async def _sweep_every(self, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            self.sweep()

    def _expired(self, session: Session, now: float) -> bool:
        # A session busy in a (slow) call is in use, not idle.
        return not session.lock.locked() and now - session.last_used > self.ttl_seconds

    def _drop(self, session: Session) -> None:
        session.closed = True
        self._sessions.pop(session.id, None)
