"""File locks on the files every sandbox shares must carry nothing between runs that overlap.

Locks and leases belong to inodes, and every bwrap sandbox binds the host's
own `/usr` (read-only, which does not stop a lock): a lock one run takes on
/usr/lib/python3.11/os.py, a run in another sandbox (another slot, another
episode, another session) sees at once, by trying the same lock without
waiting. A Score run's program is called with the hidden tests' arguments, so
it could hand them, a bit per file, to a program of another episode running a
Step at the same moment, which prints them into its observation. Found while
attacking the sandbox in the round after issue 36: on bwrap before the fix, a
probe saw every bit a holder in another sandbox set.

The boundary is the seccomp filter: no run takes or tests a lock (flock, and
fcntl's record locks, open-file-description locks and leases answer EPERM).
Each secure backend must let no bit through; the control (the insecure process
backend, which shares the host's files and has no filter) must let them all
through, so the check can fail.
"""

from __future__ import annotations

import asyncio
import secrets

import pytest
import pytest_asyncio

from env_servers.sandbox import RunRequest, make_sandbox
from tests.sandbox.control import SHARED

pytestmark = pytest.mark.asyncio(loop_scope="module")

BITS = 16
FILES = "sorted(glob.glob('/usr/lib/python3.11/*.py'))[:%d]" % BITS

HOLD = r'''
import errno, fcntl, glob, os, struct, time
files = FILES
held = []
for index, path in enumerate(files):
    if not (SECRET >> index) & 1:
        continue
    fd = os.open(path, os.O_RDONLY)
    for name, lock in (("flock", lambda: fcntl.flock(fd, fcntl.LOCK_SH)),
                       ("posix", lambda: fcntl.fcntl(fd, fcntl.F_SETLK,
                                                     struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0))),
                       ("ofd", lambda: fcntl.fcntl(fd, 37,  # F_OFD_SETLK
                                                   struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0)))):
        try:
            lock()
            held.append(name)
        except OSError as error:
            print("REFUSED", name, errno.errorcode.get(error.errno, error.errno))
print("HELD", len(held))
time.sleep(HOLD_SECONDS)
'''

PROBE = r'''
import fcntl, glob, os, struct, time
time.sleep(WAIT_SECONDS)
files = FILES
seen = 0
for index, path in enumerate(files):
    fd = os.open(path, os.O_RDWR) if os.access(path, os.W_OK) else os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        seen |= 1 << index
    except OSError:
        pass
    try:  # which record lock would stop a write lock: F_GETLK needs no write access
        answer = fcntl.fcntl(fd, fcntl.F_GETLK, struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0))
        if struct.unpack("hhqqi", answer)[0] != fcntl.F_UNLCK:
            seen |= 1 << index
    except OSError:
        pass
    try:
        answer = fcntl.fcntl(fd, 36, struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0))  # F_OFD_GETLK
        if struct.unpack("hhqqi", answer)[0] != fcntl.F_UNLCK:
            seen |= 1 << index
    except OSError:
        pass
print("SEEN", seen)
'''


@pytest_asyncio.fixture(scope="module", loop_scope="module",
                        params=["bwrap", "docker", "unsandboxed"])
async def two_sandboxes(request):
    """Two sandboxes of one backend, as two sessions' (or two replicas') would be."""
    def make():
        if request.param == "docker":
            return make_sandbox("docker", base_url=request.getfixturevalue("docker_url"), workers=1)
        if request.param == "unsandboxed":
            return make_sandbox("process", allow_insecure=True, workers=1, design=SHARED)
        return make_sandbox(request.param, workers=1)

    boxes = [make(), make()]
    await asyncio.gather(*(box.start() for box in boxes))
    yield boxes
    await asyncio.gather(*(box.aclose() for box in boxes))


def program(template: str, **values) -> str:
    text = template.replace("FILES", FILES)
    for name, value in values.items():
        text = text.replace(name, repr(value))
    return text


async def test_locks_on_shared_files_carry_nothing_between_overlapping_runs(two_sandboxes):
    holder_box, probe_box = two_sandboxes
    secret = secrets.randbits(BITS) | 1 | (1 << (BITS - 1))
    hold = program(HOLD, SECRET=secret, HOLD_SECONDS=3.0)
    probe = program(PROBE, WAIT_SECONDS=1.0)
    held, seen = await asyncio.gather(
        holder_box.run(RunRequest(program=hold, tests=("assert True",))),
        probe_box.run(RunRequest(program=probe, tests=("assert True",))))
    assert held.status == "ok" and seen.status == "ok", (held, seen)
    bits = int(next(line for line in seen.stdout.splitlines() if line.startswith("SEEN")).split()[1])
    if holder_box.secure:
        assert bits == 0, f"{holder_box.name}: a run in another sandbox saw lock bits {bits:#x}"
        assert "HELD 0" in held.stdout, held.stdout
        assert "REFUSED flock EPERM" in held.stdout, held.stdout
    else:
        assert bits == secret, (
            f"the control let {bits:#x} of {secret:#x} through, so this check could never fail")
