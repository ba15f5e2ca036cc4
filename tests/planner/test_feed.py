"""A run's feed: every watcher gets every event once, in order; a slow one is cut off alone."""

from __future__ import annotations

import asyncio

import pytest

from planner.feed import RunFeed, WatcherFellBehind


async def test_watchers_get_the_events_after_they_joined_then_the_end():
    feed = RunFeed()
    feed.publish("before")
    first = feed.subscribe()
    feed.publish(1)
    second = feed.subscribe()
    feed.publish(2)
    feed.close()
    assert [await first.next(), await first.next(), await first.next()] == [1, 2, None]
    assert [await second.next(), await second.next()] == [2, None]
    late = feed.subscribe()
    assert await late.next() is None and len(feed) == 0


async def test_a_waiting_watcher_wakes_for_the_next_event():
    feed = RunFeed()
    watcher = feed.subscribe()
    waiting = asyncio.create_task(watcher.next())
    await asyncio.sleep(0.01)
    assert not waiting.done()
    feed.publish("e")
    assert await asyncio.wait_for(waiting, 1) == "e"


async def test_a_watcher_that_falls_behind_is_cut_off_and_the_others_keep_going():
    feed = RunFeed(watcher_limit=3)
    slow, fast = feed.subscribe(), feed.subscribe()
    for i in range(3):
        feed.publish(i)
        assert await fast.next() == i
    feed.publish(3)                                   # slow holds 3 unread: over the limit
    assert len(feed) == 1
    with pytest.raises(WatcherFellBehind, match="more than 3 events behind"):
        await slow.next()
    feed.publish(4)
    assert [await fast.next(), await fast.next()] == [3, 4]
    feed.unsubscribe(fast)
    assert len(feed) == 0
