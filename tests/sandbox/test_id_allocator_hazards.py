"""Host-wide ids and page states a run could move and another run read, each reached through one syscall argument.

Found attacking the sandbox (round four, through the public API, on bwrap and
docker): the inode number of a pidfd (one host-wide counter every fork
moves: a Score run's secret reached the next Step exactly), a socket's
cookie (one host-wide counter, handed out per CPU), another process's CPU
clock (a negative clock id names a pid: the tester's CPU time between two
calls told a Score run from a Step, whatever /proc hides), and huge pages made
of the in-memory /usr every run maps (MADV_COLLAPSE: a later run sees them in
its smaps). Found while fixing them: fcntl's lock rules compared all 64 bits
of an argument the kernel reads 32 of, so a lock command with a high bit set
went through. Each test tries every way in one run and lists what worked;
the unsandboxed control shows the way works where the filter is absent.
"""

from __future__ import annotations

import json
import secrets

import pytest

from env_servers.sandbox import RunRequest
from tests.sandbox.hazard_kit import expect_contained

pytestmark = pytest.mark.asyncio(loop_scope="module")

TRY_ALL = r'''
import ctypes, json, os, socket, struct, time
libc = ctypes.CDLL(None, use_errno=True)
wins = []
def attempt(label, way):
    try:
        found = way()
    except OSError:
        return
    if found is not None:
        wins.append(label)
'''

PIDFDS = TRY_ALL + r'''
def peer_pidfd():
    left, right = socket.socketpair()
    return os.fstat(struct.unpack("i", left.getsockopt(socket.SOL_SOCKET, 77, 4))[0]).st_ino  # SO_PEERPIDFD
def cloned_pidfd():
    pidfd = ctypes.c_int(-1)
    pid = libc.syscall(56, 0x1000 | 17, 0, ctypes.byref(pidfd), 0, 0)  # clone(CLONE_PIDFD | SIGCHLD), x86_64
    if pid == 0:
        os._exit(0)
    if pid < 0:
        return None
    os.waitpid(pid, 0)
    return os.fstat(pidfd.value).st_ino
def passed_pidfd():
    left, right = socket.socketpair()
    right.setsockopt(socket.SOL_SOCKET, 76, 1)  # SO_PASSPIDFD: each message then carries the sender's pidfd
    return 1
def f(x):
    attempt("pidfd_open", lambda: os.fstat(os.pidfd_open(os.getpid())).st_ino)
    attempt("SO_PEERPIDFD", peer_pidfd)
    attempt("clone(CLONE_PIDFD)", cloned_pidfd)
    attempt("SO_PASSPIDFD", passed_pidfd)
    print("WINS " + json.dumps(wins))
    return 2 * x
'''

COOKIES = TRY_ALL + r'''
def f(x):
    left, right = socket.socketpair()
    attempt("SO_COOKIE", lambda: left.getsockopt(socket.SOL_SOCKET, 57, 8))
    attempt("SO_NETNS_COOKIE", lambda: left.getsockopt(socket.SOL_SOCKET, 71, 8))
    print("WINS " + json.dumps(wins))
    return 2 * x
'''

OTHER_CPU_CLOCKS = TRY_ALL + r'''
def f(x):
    me = os.getpid()
    for pid in [os.getppid()] + list(range(1, 9)):
        if pid not in (me, 0):
            attempt("CPU clock of pid %d" % pid, lambda: time.clock_gettime_ns(((~pid) << 3) | 2))
            attempt("CPU clock resolution of pid %d" % pid, lambda: time.clock_getres(((~pid) << 3) | 2))
    own = time.process_time_ns(), time.thread_time_ns(), time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    print("WINS " + json.dumps(wins))
    return 2 * x if all(value >= 0 for value in own) else -1
'''

SHARED_PAGE_ADVICE = TRY_ALL + r'''
import sys
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
HUGE = 2 << 20
def advise(advice):
    path = os.path.realpath(sys.executable)  # a file of the read-only /usr every run maps
    fd = os.open(path, os.O_RDONLY)
    area = libc.mmap(None, 2 * HUGE, 1, 2 | 0x20, -1, 0)  # PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS
    address = (area + HUGE - 1) & ~(HUGE - 1)
    libc.mmap(address, HUGE, 1, 1 | 0x10, fd, 0)  # PROT_READ, MAP_SHARED | MAP_FIXED: the file's first 2 MB
    os.close(fd)
    if libc.madvise(address, HUGE, advice) != 0 and ctypes.get_errno() == 1:  # EPERM: refused by the filter
        return None
    return advice
def f(x):
    for label, advice in (("MADV_COLLAPSE", 25), ("MADV_HUGEPAGE", 14), ("MADV_MERGEABLE", 12)):
        attempt(label, lambda: advise(advice))
    attempt("PR_SET_MEMORY_MERGE", lambda: None if libc.prctl(67, 1, 0, 0, 0) != 0 and ctypes.get_errno() == 1
            else 1)
    print("WINS " + json.dumps(wins))
    return 2 * x
'''

HIGH_BIT_LOCKS = TRY_ALL + r'''
class Flock(ctypes.Structure):
    _fields_ = [("l_type", ctypes.c_short), ("l_whence", ctypes.c_short), ("l_start", ctypes.c_long),
                ("l_len", ctypes.c_long), ("l_pid", ctypes.c_int)]
def lock(command):
    fd = os.open("lock-me", os.O_RDWR | os.O_CREAT, 0o600)
    lock = Flock(1, 0, 0, 0, 0)  # F_WRLCK over the whole file
    if libc.syscall(ctypes.c_long(72), ctypes.c_long(fd), ctypes.c_long(command), ctypes.byref(lock)) != 0:  # fcntl (x86_64)
        return None
    return command
def f(x):
    for label, command in (("F_SETLK", 6), ("F_OFD_SETLK", 37)):
        attempt(label + " with bit 32 set", lambda: lock((1 << 32) | command))
        attempt(label, lambda: lock(command))
    print("WINS " + json.dumps(wins))
    return 2 * x
'''


@pytest.fixture
def sandbox(hazard_sandbox):
    return hazard_sandbox


async def wins_of(sandbox, program: str) -> list[str]:
    result = await sandbox.run(RunRequest(program=program, tests=("assert f(1) == 2",)))
    assert result.status == "ok" and result.all_passed, result
    return json.loads(next(line[5:] for line in result.stdout.splitlines() if line.startswith("WINS ")))


async def test_no_pidfd_reaches_a_run(sandbox):
    expect_contained(sandbox, await wins_of(sandbox, PIDFDS))


async def test_no_socket_cookie_reaches_a_run(sandbox):
    expect_contained(sandbox, await wins_of(sandbox, COOKIES))


async def test_a_run_reads_no_cpu_clock_but_its_own(sandbox):
    expect_contained(sandbox, await wins_of(sandbox, OTHER_CPU_CLOCKS))


async def test_a_run_changes_no_huge_page_or_merging_state_of_shared_pages(sandbox):
    expect_contained(sandbox, await wins_of(sandbox, SHARED_PAGE_ADVICE))


async def test_a_lock_command_with_high_bits_set_is_refused_like_the_plain_one(sandbox):
    expect_contained(sandbox, await wins_of(sandbox, HIGH_BIT_LOCKS))


SHMEM_NUMBERS = TRY_ALL + r'''
import mmap
def maps_number(address):
    for line in open("/proc/self/maps"):
        start = int(line.split("-")[0], 16)
        if start == address:
            return int(line.split()[4])
    return None
def attached_segment():
    libc.shmat.restype = ctypes.c_void_p
    ident = libc.shmget(0, 4096, 0o1600)
    address = libc.shmat(ident, None, 0) if ident >= 0 else None
    if not address or address == ctypes.c_void_p(-1).value:
        return None
    return maps_number(address)
def shared_mapping(fd, flags):
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    address = libc.mmap(None, 4096, 3, flags, fd, 0)
    if address in (None, ctypes.c_void_p(-1).value):
        return None
    return maps_number(address)
def zero_mapping():
    fd = os.open("/dev/zero", os.O_RDWR)
    return shared_mapping(fd, 1)  # MAP_SHARED: a file of the shmem mount
def f(x):
    attempt("memfd_create", lambda: os.fstat(os.memfd_create("x")).st_ino)
    attempt("shmat", attached_segment)
    attempt("MAP_SHARED | MAP_ANONYMOUS", lambda: shared_mapping(-1, 0x21))
    attempt("MAP_SHARED_VALIDATE | MAP_ANONYMOUS", lambda: shared_mapping(-1, 0x23))
    attempt("mmap.mmap(-1, n)", lambda: maps_number(ctypes.addressof(ctypes.c_char.from_buffer(mmap.mmap(-1, 4096)))))
    attempt("a shared mapping of /dev/zero", zero_mapping)
    with open("/dev/zero", "rb") as zeros:
        still_zeros = zeros.read(1 << 16) == bytes(1 << 16)
    private = mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE)  # private memory stays the program's to use
    private[:4] = b"ok!!"
    print("WINS " + json.dumps(wins))
    return 2 * x if still_zeros and private[:4] == b"ok!!" else -1
'''


async def test_no_file_of_the_hosts_shmem_mount_reaches_a_run(sandbox):
    """memfds, System V segments and shared anonymous or /dev/zero mappings are numbered by one host-wide counter."""
    expect_contained(sandbox, await wins_of(sandbox, SHMEM_NUMBERS))


PROC_WRITES = TRY_ALL + r'''
def write(path, text):
    with open(path, "w") as handle:
        handle.write(text)
    return 1
def own_autogroup_nice():
    line = open("/proc/self/autogroup").read()  # "/autogroup-N nice V"
    return line.split()[-1]
def f(x):
    attempt("/proc/self/autogroup", lambda: write("/proc/self/autogroup", own_autogroup_nice()))
    attempt("/proc/self/comm", lambda: write("/proc/self/comm", "renamed"))
    attempt("/proc/self/timerslack_ns", lambda: write("/proc/self/timerslack_ns", "50000"))
    with open("made-here", "w") as handle:  # the run's own files stay writable: its work dir, /tmp, /dev/shm
        handle.write("ok")
    with open("/dev/shm/made-here", "w") as handle, open("/dev/null", "w") as null:
        handle.write("ok")
        null.write("ok")
    print("WINS " + json.dumps(wins))
    return 2 * x
'''


async def test_a_run_writes_nothing_under_proc(sandbox):
    """Round six: a run rewrote its worker session's autogroup nice (kept for every later run of the worker,
    a 4-bit channel, and a nice of 12 or more starved the next session's runs into timeouts on bwrap), and
    every such write is rate-limited by one host-wide clock, which overlapping runs of any sandboxes read."""
    expect_contained(sandbox, await wins_of(sandbox, PROC_WRITES))


POSIX_QUEUES = TRY_ALL + r'''
class Attributes(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_long), ("maxmsg", ctypes.c_long), ("msgsize", ctypes.c_long),
                ("curmsgs", ctypes.c_long), ("reserved", ctypes.c_long * 4)]
def by_call():
    queue = libc.mq_open(b"/counted-" + NAME, os.O_CREAT | os.O_RDWR, 0o600, ctypes.byref(Attributes(0, 1, 64)))
    if queue < 0:
        return None
    libc.mq_unlink(b"/counted-" + NAME)
    return queue
def by_path():
    if not os.path.isdir("/dev/mqueue"):
        return None
    path = "/dev/mqueue/counted-" + NAME.decode()
    with open(path, "w"):
        pass
    os.unlink(path)
    return 1
def f(x):
    attempt("mq_open", by_call)
    attempt("a queue made by path", by_path)
    print("WINS " + json.dumps(wins))
    return 2 * x
'''


async def test_a_run_makes_no_posix_queue(sandbox):
    """Round seven: POSIX queues' bytes count against the uid at every level of the user namespaces above a
    run, host root's included, so one run's queues set what another bwrap run could still make (6 bits between
    overlapping runs of two sandboxes), and a run could leave every other none."""
    name = secrets.token_hex(6)
    expect_contained(sandbox, await wins_of(sandbox, f"NAME = b'{name}'\n" + POSIX_QUEUES))
