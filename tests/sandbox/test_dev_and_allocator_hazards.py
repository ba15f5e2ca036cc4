"""What a run can mark in the sandbox's /dev, and the host-wide allocators a run can move.

Found by attacking the sandbox (this round): four channels, each shown carrying
a secret the hidden test handed the program.
- Runs of one worker shared its pty filesystem: the tty layer stamps the times
  of /dev/pts/ptmx when a pty master is written or read (to the second, once an
  8-second block), whatever the mount flags, and a later run on the worker read
  them back (bwrap and docker). Each run now gets a pty filesystem of its own.
- Docker's /dev is a writable tmpfs: following one of its symlinks set its
  access time, which a later run read (bwrap's /dev is read-only, and a
  read-only mount's times never move). Each run's /dev is read-only now: no
  mount a run can see is both writable and shared with another run.
- setsid() takes the next value of one host-wide counter, which
  /proc/self/autogroup shows; eventfds take the lowest free id of one host-wide
  allocator, which their fdinfo shows: overlapping runs on two workers passed
  bits through either. No run can make a session or an eventfd now (the
  filter denies setsid, eventfd and eventfd2; the candidate and the tester take
  a process group of their own instead of a session).
Each hazard runs on bwrap and docker, where it must find nothing, and on the
unsandboxed control, where it finds what the run moved.
"""

from __future__ import annotations

import json

import pytest

from env_servers.sandbox import Limits, RunRequest
from tests.sandbox.hazard_kit import expect_contained

pytestmark = pytest.mark.asyncio(loop_scope="module")

RUN_OWN_MOUNTS = ("/tmp", "/dev/shm", "/dev/mqueue", "/dev/pts", "/proc")  # made afresh for every run


def report(result, prefix: str):
    lines = [line[len(prefix) + 1 :] for line in result.stdout.splitlines() if line.startswith(prefix + " ")]
    assert result.status == "ok" and len(lines) == 1, result
    return json.loads(lines[0])



async def run(sandbox, program: str, limits: Limits = Limits()):
    return await sandbox.run(RunRequest(program=program, tests=("assert True",), limits=limits))


PTMX_TIMES = r'''
import json, os
try:
    found = os.stat("/dev/ptmx")  # what openpty opens: the host's node, or a link to the pty filesystem's
    times = [found.st_atime_ns, found.st_mtime_ns, found.st_ctime_ns]
except OSError as error:
    times = type(error).__name__
print("PTMX " + json.dumps(times))
'''

MARK_PTMX = r'''
import os, time
found = os.stat("/dev/ptmx")
last = max(found.st_atime_ns, found.st_mtime_ns) // 10**9
while int(time.time()) >> 3 <= last >> 3:  # the tty layer stamps once an 8-second block
    time.sleep(0.05)
master, follower = os.openpty()
os.write(master, b"x\n")  # the master written: ptmx's mtime
os.write(follower, b"y\n")
os.read(master, 100)  # and read: its atime
'''


async def test_a_run_leaves_no_mark_on_the_pty_filesystem(hazard_sandbox):
    sandbox = hazard_sandbox
    before = report(await run(sandbox, PTMX_TIMES), "PTMX")
    workers = sandbox.worker_host_pids()
    marking = await run(sandbox, MARK_PTMX, Limits(wall_seconds=12.0, cpu_seconds=12))
    assert marking.status == "ok", marking
    after = report(await run(sandbox, PTMX_TIMES), "PTMX")
    assert sandbox.worker_host_pids() == workers, "the worker was replaced: the next run was meant to share it"
    wins = []
    if sandbox.secure:  # a pty filesystem of each run's own: untouched, all three times its mount's
        wins += [f"the next run's ptmx was touched: {after}"] if len(set(after)) != 1 else []
    elif after[:2] != before[:2]:
        wins.append(f"ptmx's times moved from {before} to {after}")
    expect_contained(sandbox, wins)


WRITABLE_MOUNTS = r'''
import json, os, stat
writable = []
for line in open("/proc/self/mountinfo"):
    fields = line.split()
    point, (major, minor) = fields[4], map(int, fields[2].split(":"))
    try:
        seen = os.stat(point)
    except OSError:
        continue  # covered by a later mount (docker's /sys/fs/cgroup under the masked /sys)
    if stat.S_ISCHR(seen.st_mode) or (os.major(seen.st_dev), os.minor(seen.st_dev)) != (major, minor):
        continue  # a device node bound in (its driver keeps no times), or a mount covered by another
    if "rw" in fields[5].split(","):
        writable.append(point)
print("WRITABLE " + json.dumps(sorted(set(writable))))
'''

FOLLOW_DEV_LINKS = r'''
import os
for name in ("fd", "stdin", "stdout", "stderr", "ptmx", "core"):
    try:
        os.stat("/dev/" + name)
    except OSError:
        pass
os.listdir("/dev")
'''

DEV_TIMES = r'''
import json, os
times = {}
for name in sorted(os.listdir("/dev")):
    if os.path.ismount("/dev/" + name):
        continue  # the run's own mounts (/dev/shm, /dev/pts, /dev/mqueue): made afresh, with times of their own
    found = os.lstat("/dev/" + name)
    times[name] = [found.st_atime_ns, found.st_mtime_ns]
found = os.lstat("/dev")
times["."] = [found.st_atime_ns, found.st_mtime_ns]
print("TIMES " + json.dumps(times))
'''


async def test_no_mount_a_run_sees_is_writable_unless_it_is_the_runs_own(hazard_sandbox):
    sandbox = hazard_sandbox
    writable = report(await run(sandbox, WRITABLE_MOUNTS), "WRITABLE")
    shared = [point for point in writable if point not in RUN_OWN_MOUNTS]
    before = report(await run(sandbox, DEV_TIMES), "TIMES")
    assert (await run(sandbox, FOLLOW_DEV_LINKS)).status == "ok"
    after = report(await run(sandbox, DEV_TIMES), "TIMES")
    moved = sorted(name for name in before if name in after and after[name] != before[name])
    wins = [f"writable mounts a run shares with others: {shared}"] if shared else []
    wins += [f"/dev entries whose times a run moved: {moved}"] if moved and sandbox.secure else []
    expect_contained(sandbox, wins)


MAKE_SESSIONS = r'''
import json, os
made = []
for _ in range(20):
    reader, writer = os.pipe()
    if os.fork() == 0:
        try:
            os.setsid()
            with open("/proc/self/autogroup") as handle:  # the id the new session took: the host's next
                os.write(writer, handle.read().split()[0].encode())
        finally:
            os._exit(0)
    os.close(writer)
    made.append(os.read(reader, 100).decode())
    os.close(reader)
    os.wait()
print("SESSIONS " + json.dumps([name for name in made if name]))
'''

MAKE_EVENTFDS = r'''
import json, os
ids = []
try:
    for _ in range(3):
        fd = os.eventfd(0)
        with open("/proc/self/fdinfo/%d" % fd) as handle:
            ids += [int(line.split()[1]) for line in handle if line.startswith("eventfd-id:")]
except OSError as error:
    ids = type(error).__name__
print("EVENTFDS " + json.dumps(ids))
'''


async def test_a_run_moves_no_host_wide_allocator_that_it_or_another_can_read(hazard_sandbox):
    """setsid's autogroup counter and the eventfd ids are the host's: a run that moved them signalled
    every overlapping run on the host (bits through the count of sessions made in a time slot, or
    through the lowest free eventfd id)."""
    sandbox = hazard_sandbox
    sessions = report(await run(sandbox, MAKE_SESSIONS), "SESSIONS")
    eventfds = report(await run(sandbox, MAKE_EVENTFDS), "EVENTFDS")
    wins = []
    if sessions:
        wins.append(f"{len(sessions)} sessions made, taking the host's autogroup ids {sessions[0]} to {sessions[-1]}")
    if isinstance(eventfds, list):
        wins.append(f"eventfds made, with the host's ids {eventfds}")
    expect_contained(sandbox, wins)
