"""Round three, finding 4: memory a retired run left charged must never shrink a later run's cap.

Each bwrap worker runs in a cgroup of its own (a slot's next worker gets a
fresh one, and the old is removed once empty), and a worker whose run leaves
memory pinned beyond what it held before its first run is retired.
"""

from __future__ import annotations

import os

import pytest

from env_servers.sandbox import Limits, RunRequest, make_sandbox
from env_servers.sandbox import pool as pool_module

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="cgroups for sandbox slots need root")

RIGHT = RunRequest(program="def f(x):\n    return 2 * x\n", tests=("assert f(2) == 4",),
                   limits=Limits(wall_seconds=10))


def _cgroup(box):
    channel = box.slots[0].channel
    return channel.cgroup if channel is not None else None


async def test_a_retired_workers_successor_starts_in_a_fresh_cgroup_and_the_old_one_goes(monkeypatch):
    box = make_sandbox("bwrap", workers=1)
    try:
        assert (await box.run(RIGHT)).all_passed
        first = _cgroup(box)
        if first is None:
            pytest.skip("this host gives the sandbox no cgroups")
        # nothing a run makes on bwrap outlives it (its own namespaces): memory left charged is what retires
        channel = box.slots[0].channel
        monkeypatch.setattr(channel, "memory_left_behind", lambda: pool_module.LEFTOVER_MEMORY_BYTES + (1 << 20))
        assert (await box.run(RIGHT)).all_passed
        assert (await box.run(RIGHT)).all_passed
        second = _cgroup(box)
        assert second.directories != first.directories
        assert not any(directory.exists() for directory in first.directories)
    finally:
        await box.aclose()


async def test_a_run_that_leaves_memory_pinned_retires_its_worker(monkeypatch):
    box = make_sandbox("bwrap", workers=1)
    try:
        assert (await box.run(RIGHT)).all_passed
        if _cgroup(box) is None:
            pytest.skip("this host gives the sandbox no cgroups")
        starts = box.slots[0].starts
        assert (await box.run(RIGHT)).all_passed
        assert box.slots[0].starts == starts, "a clean run keeps its worker"
        channel = box.slots[0].channel
        monkeypatch.setattr(channel, "memory_left_behind",
                            lambda: pool_module.LEFTOVER_MEMORY_BYTES + (1 << 20))
        assert (await box.run(RIGHT)).all_passed
        assert box.slots[0].channel is None or box.slots[0].channel is not channel
        assert (await box.run(RIGHT)).all_passed
        assert box.slots[0].starts == starts + 1
    finally:
        await box.aclose()


async def test_the_baseline_is_what_the_worker_holds_before_its_first_run():
    box = make_sandbox("bwrap", workers=1)
    try:
        for _ in range(5):
            assert (await box.run(RIGHT)).all_passed
        cgroup = _cgroup(box)
        if cgroup is None:
            pytest.skip("this host gives the sandbox no cgroups")
        assert 0 < cgroup.memory_pinned()
        assert cgroup.memory_beyond() <= pool_module.LEFTOVER_MEMORY_BYTES
        assert box.slots[0].starts == 1, "honest runs never retire their worker for memory"
    finally:
        await box.aclose()
