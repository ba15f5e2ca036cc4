"""BusyClock: the wall time during which the model is working, overlaps once."""

import asyncio

import pytest

from planner.model_client import BusyClock


async def _hold(clock: BusyClock, delay: float, seconds: float) -> None:
    await asyncio.sleep(delay)
    with clock:
        await asyncio.sleep(seconds)


async def test_overlapping_calls_count_once_and_gaps_not_at_all():
    clock = BusyClock()
    # two overlapping calls over [0, 0.2], then a gap, then one call over [0.3, 0.4]
    await asyncio.gather(_hold(clock, 0.0, 0.2), _hold(clock, 0.05, 0.1), _hold(clock, 0.3, 0.1))
    assert clock.seconds == pytest.approx(0.3, abs=0.06)
