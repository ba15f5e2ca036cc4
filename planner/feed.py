"""Fan-out of one live run's SearchEvents to any number of watchers (WatchRun).

The planner publishes each event the moment the search emits it; every
watcher gets its own bounded queue, so a slow watcher never slows the search
or another watcher: one that falls `limit` events behind is cut off (its
`next()` raises `WatcherFellBehind`) and may watch again for a fresh snapshot.
Closing the feed ends every watcher after the events already queued.
"""

from __future__ import annotations

import asyncio
from collections import deque

DEFAULT_WATCHER_LIMIT = 10_000


class WatcherFellBehind(Exception):
    """The watcher's queue overflowed; its view of the run is incomplete."""


class Watcher:
    """One subscriber's queue of events."""

    def __init__(self, limit: int):
        self._limit = limit
        self._events: deque = deque()
        self._wakeup = asyncio.Event()
        self.closed = False
        self.overflowed = False

    def push(self, event) -> None:
        if self.closed:
            return
        if len(self._events) >= self._limit:
            self.overflowed = self.closed = True
        else:
            self._events.append(event)
        self._wakeup.set()

    def close(self) -> None:
        self.closed = True
        self._wakeup.set()

    async def next(self):
        """The next event; None once the feed closed and the queue is drained."""
        while not self._events:
            if self.overflowed:
                raise WatcherFellBehind(f"fell more than {self._limit} events behind")
            if self.closed:
                return None
            self._wakeup.clear()
            await self._wakeup.wait()
        if self.overflowed:
            raise WatcherFellBehind(f"fell more than {self._limit} events behind")
        return self._events.popleft()


class RunFeed:
    """The live events of one run and the watchers following them."""

    def __init__(self, watcher_limit: int = DEFAULT_WATCHER_LIMIT):
        self._limit = watcher_limit
        self._watchers: set[Watcher] = set()
        self.closed = False

    def __len__(self) -> int:
        return len(self._watchers)

    def publish(self, event) -> None:
        for watcher in list(self._watchers):
            watcher.push(event)
            if watcher.overflowed:
                self._watchers.discard(watcher)

    def subscribe(self) -> Watcher:
        """A new watcher that receives every event published from now on."""
        watcher = Watcher(self._limit)
        if self.closed:
            watcher.close()
        else:
            self._watchers.add(watcher)
        return watcher

    def unsubscribe(self, watcher: Watcher) -> None:
        self._watchers.discard(watcher)

    def close(self) -> None:
        self.closed = True
        for watcher in self._watchers:
            watcher.close()
        self._watchers.clear()
