"""The files every sandbox shares must carry nothing between runs that overlap: no locks, no
watches, no host-wide counters.

Locks, leases and inotify watches belong to inodes, and every bwrap sandbox
binds the host's own `/usr` (read-only, which stops neither): a lock one run
takes on /usr/lib/python3.11/os.py, a run in another sandbox (another slot,
another episode, another session) sees at once by trying the same lock
without waiting; a file one run opens, a run in another sandbox that watches
it is told of. A Score run's program is called with the hidden tests'
arguments, so it could hand them, a bit per file, to a program of another
episode running a Step at the same moment, which prints them into its
observation. Found while attacking the sandbox in the round after issue 36:
on bwrap before the fix, a probe in another sandbox read all 16 bits either
way.

The boundary is the seccomp filter: no run takes or tests a lock (flock, and
fcntl's record locks, open-file-description locks and leases answer EPERM)
and none watches a file (inotify and fcntl's F_NOTIFY answer EPERM; fanotify
was denied before). Each secure backend must let no bit through; the control
(the insecure process backend, which shares the host's files and has no
filter) must let them all through, so each check can fail.

Host-wide counters are the same kind of channel, read rather than held: a run
that opens 59 descriptors moves /proc/sys/fs/file-nr by exactly 59 in every
other sandbox at once (seen on bwrap before the fix), and /proc/loadavg,
/proc/stat and sysinfo(2) count the host's threads and processes, /proc/meminfo
and each NUMA node's meminfo under /sys its memory. Every backend hides them
(env_servers/sandbox/host_counters.py).
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
# The same files in every sandbox (the host's, bound read-only; docker's image has the same Debian python).
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


async def overlapping(two_sandboxes, sender: str, receiver: str, **values):
    """Runs `sender` in one sandbox and `receiver` in the other at once, with a fresh
    SECRET (its first and last bits set); (secret, the sender's run, the receiver's run,
    the receiver's SEEN line as words)."""
    secret = secrets.randbits(BITS) | 1 | (1 << (BITS - 1))
    sent, seen = await asyncio.gather(
        two_sandboxes[0].run(RunRequest(program=program(sender, SECRET=secret, **values),
                                        tests=("assert True",))),
        two_sandboxes[1].run(RunRequest(program=program(receiver, **values),
                                        tests=("assert True",))))
    assert sent.status == "ok" and seen.status == "ok", (sent, seen)
    line = next(line for line in seen.stdout.splitlines() if line.startswith("SEEN"))
    return secret, sent, seen, line.split()


def assert_the_control_let_through(bits: int, secret: int) -> None:
    assert bits == secret, (
        f"the control let {bits:#x} of {secret:#x} through, so this check could never fail")


async def test_locks_on_shared_files_carry_nothing_between_overlapping_runs(two_sandboxes):
    holder_box = two_sandboxes[0]
    secret, held, _, line = await overlapping(two_sandboxes, HOLD, PROBE, HOLD_SECONDS=3.0,
                                              WAIT_SECONDS=1.0)
    bits = int(line[1])
    if holder_box.secure:
        assert bits == 0, f"{holder_box.name}: a run in another sandbox saw lock bits {bits:#x}"
        assert "HELD 0" in held.stdout, held.stdout
        assert "REFUSED flock EPERM" in held.stdout, held.stdout
    else:
        assert_the_control_let_through(bits, secret)


SEND_BY_OPENING = r"""
import glob, os, time
time.sleep(WAIT_SECONDS)
for index, path in enumerate(FILES):
    if (SECRET >> index) & 1:
        os.close(os.open(path, os.O_RDONLY))
"""

WATCH = r"""
import ctypes, errno, fcntl, glob, os, select, signal, struct, time
libc = ctypes.CDLL(None, use_errno=True)
files = FILES
seen = 0
watch = libc.inotify_init1(os.O_NONBLOCK)
if watch < 0:
    print("REFUSED inotify", errno.errorcode.get(ctypes.get_errno()))
watched = {}
for index, path in enumerate(files):
    number = libc.inotify_add_watch(watch, path.encode(), 0x20 | 0x1)  # IN_OPEN | IN_ACCESS
    if number >= 0:
        watched[number] = index
noticed = []
try:  # dnotify: a signal when an entry of the directory is read
    directory = os.open("/usr/lib/python3.11", os.O_RDONLY)
    signal.signal(signal.SIGIO, lambda *_: noticed.append(1))
    fcntl.fcntl(directory, fcntl.F_NOTIFY, fcntl.DN_ACCESS | fcntl.DN_MULTISHOT)
except OSError as error:
    print("REFUSED dnotify", errno.errorcode.get(error.errno))
end = time.time() + LISTEN_SECONDS
while time.time() < end:
    if watch >= 0 and select.select([watch], [], [], 0.05)[0]:
        data = os.read(watch, 65536)
        offset = 0
        while offset < len(data):
            number, mask, cookie, length = struct.unpack_from("iIII", data, offset)
            seen |= 1 << watched[number]
            offset += 16 + length
    else:
        time.sleep(0.05)
print("SEEN", seen, "NOTICED", len(noticed))
"""


async def test_watches_on_shared_files_tell_nothing_of_an_overlapping_run(two_sandboxes):
    sender_box = two_sandboxes[0]
    secret, _, seen, line = await overlapping(two_sandboxes, SEND_BY_OPENING, WATCH,
                                              WAIT_SECONDS=1.0, LISTEN_SECONDS=2.5)
    bits, notices = int(line[1]), int(line[3])
    if sender_box.secure:
        assert (bits, notices) == (0, 0), (
            f"{sender_box.name}: a run in another sandbox saw opens {bits:#x}, {notices} notices")
        assert "REFUSED inotify EPERM" in seen.stdout, seen.stdout
        assert "REFUSED dnotify EPERM" in seen.stdout, seen.stdout
    else:
        assert_the_control_let_through(bits, secret)


SEND_BY_OPENING_DESCRIPTORS = r"""
import os, resource, time
time.sleep(WAIT_SECONDS)
limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
held = [os.open("/dev/null", os.O_RDONLY) for _ in range(min(limit, 1024) - 10)]
print("OPENED", len(held))
time.sleep(HOLD_SECONDS)
"""

READ_COUNTERS = r"""
import ctypes, errno, time
libc = ctypes.CDLL(None, use_errno=True)
def read(path, pick):
    try:
        return pick(open(path).read())
    except (OSError, ValueError, IndexError):
        return None
counters = {
    "file-nr": lambda: read("/proc/sys/fs/file-nr", lambda text: int(text.split()[0])),
    "threads": lambda: read("/proc/loadavg", lambda text: int(text.split()[3].split("/")[1])),
    "forks": lambda: read("/proc/stat", lambda text: int(text.split("processes")[1].split()[0])),
    "meminfo": lambda: read("/proc/meminfo", lambda text: int(text.split()[4])),
    "node-meminfo": lambda: read("/sys/devices/system/node/node0/meminfo",
                                 lambda text: int(text.split()[8])),
}
buffer = ctypes.create_string_buffer(128)
print("SYSINFO", "refused" if libc.sysinfo(buffer) != 0 else "answered")
samples = {name: [] for name in counters}
end = time.time() + LISTEN_SECONDS
while time.time() < end:
    for name, sample in counters.items():
        samples[name].append(sample())
    time.sleep(0.05)
readable = sorted(name for name, values in samples.items() if any(v is not None for v in values))
files = [v for v in samples["file-nr"] if v is not None]
print("SEEN", max(files) - min(files) if files else 0, "READABLE", ",".join(readable) or "-")
"""


async def test_host_wide_counters_tell_nothing_of_an_overlapping_run(two_sandboxes):
    sender_box = two_sandboxes[0]
    _, sent, seen, line = await overlapping(two_sandboxes, SEND_BY_OPENING_DESCRIPTORS,
                                            READ_COUNTERS, WAIT_SECONDS=1.0, HOLD_SECONDS=1.5,
                                            LISTEN_SECONDS=3.0)
    opened = int(next(word for word in sent.stdout.split("OPENED")[1].split()))
    moved, readable = int(line[1]), line[3]
    if sender_box.secure:
        assert (moved, readable) == (0, "-"), (
            f"{sender_box.name}: a run in another sandbox read {readable}; file-nr moved {moved}")
        assert "SYSINFO refused" in seen.stdout, seen.stdout
    else:
        assert moved >= opened - 5 and readable == "file-nr,forks,meminfo,node-meminfo,threads", (
            f"the control saw file-nr move {moved} for {opened} descriptors ({readable}), "
            "so this check could never fail")

