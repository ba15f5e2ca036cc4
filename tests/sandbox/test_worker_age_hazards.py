"""A run must not tell how many runs its worker served, or whether the last one retired it.

The channel: a run that leaves a trace (a process, a file, a System V object)
retires its worker, and the slot's next run gets a fresh one. If that next run
can tell a fresh worker from a used one, a Score run carries one bit of what it
holds (its hidden tests' arguments) to whichever run comes next on its slot, of
any session: leave a trace for 1, none for 0. Before runs had PID namespaces
of their own, a run on bwrap read it off its own pid (6 in a fresh worker, 6
more for every run since), the pids /proc lists and ns_last_pid.

Here a program reports what it can see of processes: its own pid and its
parent's, the pids /proc lists, ns_last_pid, the parents and start order of
what it sees. It runs on a fresh worker, after quiet runs, and after each run
of a one-byte secret, one bit a run (a 1 forks a process, which the worker must
not keep). On bwrap every report must be the same, and no bit may decode; on
the unsandboxed control (the process backend, whose pids are the host's) the
reports differ, so the check can fail. Newer kernels number namespaces and
mounts by host-wide counters a program can read (NS_GET_ID, statx's unique
mount id): the gap between a run's namespaces and its sandbox's told a
worker's age until the filter refused them (found attacking the sandbox). On docker too, where the worker makes
each run's PID namespace in a user namespace of its own (before, the channel
was open there: docker's containers hold no capability to make one).
"""

from __future__ import annotations

import json
import secrets

import pytest

from env_servers.sandbox import Limits, RunRequest

pytestmark = pytest.mark.asyncio(loop_scope="module")

LOOK_AT_PROCESSES = r'''
import json, os

def read(path):
    try:
        with open(path) as handle:
            return handle.read().strip()
    except OSError as error:
        return type(error).__name__

listed = sorted(int(name) for name in os.listdir("/proc") if name.isdigit())
parents = {}
for pid in listed:
    stat = read("/proc/%d/stat" % pid)
    parents[pid] = stat.rsplit(")", 1)[1].split()[1] if ")" in stat else stat
def namespace_id(kind):  # NS_GET_ID (newer kernels): one host-wide counter numbers every namespace
    import ctypes
    number = ctypes.c_uint64(0)
    fd = os.open("/proc/self/ns/" + kind, os.O_RDONLY)
    found = ctypes.CDLL(None).ioctl(fd, (2 << 30) | (8 << 16) | (0xB7 << 8) | 13, ctypes.byref(number))
    os.close(fd)
    return number.value if found == 0 else None

def unique_mount_id(path):  # statx's STATX_MNT_ID_UNIQUE (newer kernels): another host-wide counter
    import ctypes, struct
    buffer = ctypes.create_string_buffer(256)
    found = ctypes.CDLL(None).syscall(332, -100, path.encode(), 0, 0x4000, buffer)  # x86_64
    return struct.unpack_from("Q", buffer, 0x90)[0] if found == 0 else None

ids = {kind: namespace_id(kind) for kind in ("user", "uts", "pid", "ipc", "net", "mnt")}
mounts = {path: unique_mount_id(path) for path in ("/", "/proc", "/tmp")}
print("SEEN " + json.dumps({
    "pid": os.getpid(), "parent": os.getppid(), "listed": listed,
    "parents": parents, "ns_last_pid": read("/proc/sys/kernel/ns_last_pid"),
    "namespace ids": ids, "unique mount ids": mounts,
}, sort_keys=True))
'''

SEND_A_BIT = "import os\nif BIT:\n    if os.fork() == 0:\n        os._exit(0)\n    os.wait()\n"


@pytest.fixture
def sandbox(hazard_sandbox):
    return hazard_sandbox


async def seen(sandbox) -> str:
    result = await sandbox.run(RunRequest(program=LOOK_AT_PROCESSES, tests=("assert True",), limits=Limits()))
    lines = [line for line in result.stdout.splitlines() if line.startswith("SEEN ")]
    assert result.status == "ok" and lines, result
    return lines[0]


async def test_a_run_cannot_tell_its_workers_age_or_whether_the_last_run_retired_it(sandbox):
    fresh = await seen(sandbox)  # this module's first run: the slot's first worker
    await sandbox.run(RunRequest(program="x = 1\n", tests=("assert True",), limits=Limits()))
    aged = await seen(sandbox)
    secret = secrets.randbelow(254) + 1  # at least one 1 and one 0 among its eight bits
    bits = [(secret >> index) & 1 for index in range(8)]
    after = []
    for bit in bits:
        sent = await sandbox.run(RunRequest(program=f"BIT = {bit}\n" + SEND_A_BIT, tests=("assert True",),
                                            limits=Limits()))
        assert sent.status == "ok", sent
        after.append(await seen(sandbox))
    decoded = [int(report == fresh) for report in after]  # a fresh worker after a 1: the last run retired it
    wins = []
    if aged != fresh:
        wins.append(f"a fresh worker and a used one differ: {json.loads(fresh[5:])} then {json.loads(aged[5:])}")
    if decoded == bits:
        wins.append(f"the secret {secret:#04x} crossed, a bit a run, from each run to the next on its slot")
    if len(set(after)) > 1:
        wins.append(f"{len(set(after))} different reports after the secret's runs")
    if sandbox.secure:
        assert wins == [], f"{sandbox.name} let these through: {wins}"
    else:
        assert wins, "the unsandboxed control shows no difference, so this check could never fail"
