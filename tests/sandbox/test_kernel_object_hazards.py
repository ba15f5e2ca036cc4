"""Kernel-object hazards: what a run leaves in its sandbox's kernel state must never reach a later run.

A worker serves many runs of many sessions. Each hazard has a run leave
something behind (System V objects, POSIX queues, files, keys, sockets,
timers, memory, moved counters) and a later run look for it. On the secure
backends (bwrap, docker) the later run must find nothing: a run that leaves
anything retires its worker (sandbox/pristine.py), and what the sandbox cannot
make pristine is out of the program's reach. On the unsandboxed control (the
process backend, which shares the host's kernel state) the later run must find
it, so each check can fail; resource hazards (timers, daemons) are contained
everywhere, the control's worker killing what a run started.
"""

from __future__ import annotations

import random
import secrets
import socket
import threading
import time

import pytest

from env_servers.sandbox import Limits, RunRequest
from tests.sandbox import kernel_objects
from tests.sandbox.hazard_kit import expect_contained

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture
def sandbox(hazard_sandbox):
    return hazard_sandbox


@pytest.fixture
def token() -> str:
    return secrets.token_hex(6)



async def run(sandbox, program: str, tests=("assert True",), limits: Limits = Limits(), **request):
    return await sandbox.run(RunRequest(program=program, tests=tuple(tests), limits=limits, **request))


def marked(result, prefix: str) -> list[str]:
    return [line for line in result.stdout.splitlines() if line.startswith(prefix)]


async def assert_still_judges(sandbox) -> None:
    good = await run(sandbox, "def f(x):\n    return 2 * x\n", ("assert f(2) == 4", "assert f(3) == 7"))
    assert good.status == "ok" and [t.passed for t in good.tests] == [True, False], good


# ------------------------------------------------------------------ System V objects, POSIX queues

PLANT_SYSV = r'''
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
class Message(ctypes.Structure):
    _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * 64)]
made = {"shm": 0, "msg": 0, "sem": 0}
for key in range(BASE, BASE + COUNT):
    if libc.shmget(key, 4096, 0o1600) >= 0:  # IPC_CREAT | 0600
        made["shm"] += 1
    queue = libc.msgget(key, 0o1600)
    if queue >= 0:
        made["msg"] += 1
        libc.msgsnd(queue, ctypes.byref(Message(1, MARKER)), 64, 0o4000)  # IPC_NOWAIT
    if libc.semget(key, 1, 0o1600) >= 0:
        made["sem"] += 1
print("MADE", made)
'''

LOOK_FOR_SYSV = r'''
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
found = []
for kind in ("shm", "msg", "sem"):
    try:
        with open("/proc/sysvipc/" + kind) as handle:  # read to its end
            keys = [int(row.split()[0]) for row in handle.read().splitlines()[1:]]
    except OSError:
        keys = []
    hits = [key for key in keys if BASE <= key < BASE + COUNT]
    if hits:
        found.append("%d %s objects listed" % (len(hits), kind))
class Message(ctypes.Structure):
    _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * 64)]
for key in range(BASE, BASE + COUNT, 97):  # by key, without the listing
    queue = libc.msgget(key, 0)
    message = Message()
    if queue >= 0 and libc.msgrcv(queue, ctypes.byref(message), 64, 0, 0o4000) > 0:
        found.append("read %r from queue %d" % (message.mtext, key))
        break
print("FOUND", found)
'''


async def test_thousands_of_system_v_objects_of_each_kind_do_not_reach_the_next_run(sandbox, token):
    """A listing longer than one page and objects of every kind: the later run finds none of them."""
    base, count = random.randrange(1 << 24, 1 << 30), 2000
    values = f"BASE, COUNT, MARKER = {base}, {count}, b'marker-{token}'\n"
    try:
        planted = await run(sandbox, values + PLANT_SYSV)
        assert planted.status == "ok", planted
        assert marked(planted, "MADE") == [f"MADE {{'shm': {count}, 'msg': {count}, 'sem': {count}}}"]
        looked = await run(sandbox, values + LOOK_FOR_SYSV)
    finally:
        if not sandbox.secure:
            kernel_objects.remove_sysv_keys(base, count)
    assert looked.status == "ok", looked
    found = marked(looked, "FOUND")[0]
    expect_contained(sandbox, [] if found == "FOUND []" else [found])
    await assert_still_judges(sandbox)


async def test_objects_made_by_a_model_written_test_do_not_reach_the_next_run(sandbox, token):
    """The model's own tests run as untrusted code; what they leave is removed like the program's."""
    base, count = random.randrange(1 << 24, 1 << 30), 50
    values = f"BASE, COUNT, MARKER = {base}, {count}, b'marker-{token}'\n"
    untrusted = values + PLANT_SYSV + "assert f(1) == 2\n"
    try:
        planted = await run(sandbox, "def f(x):\n    return 2 * x\n", untrusted_tests=(untrusted,))
        assert planted.all_passed, planted
        looked = await run(sandbox, values + LOOK_FOR_SYSV)
    finally:
        if not sandbox.secure:
            kernel_objects.remove_sysv_keys(base, count)
    found = marked(looked, "FOUND")[0]
    expect_contained(sandbox, [] if found == "FOUND []" else [found])


MQUEUE = r'''
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
class Attributes(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_long), ("maxmsg", ctypes.c_long), ("msgsize", ctypes.c_long),
                ("curmsgs", ctypes.c_long), ("reserved", ctypes.c_long * 4)]
def plant(name, text):
    queue = libc.mq_open(name, os.O_CREAT | os.O_RDWR, 0o600, ctypes.byref(Attributes(0, 1, 64)))
    if queue < 0:
        print("blocked mq_open", ctypes.get_errno())
        return
    libc.mq_send(queue, text, len(text), 0)
    print("PLANTED", name)
def look(name):
    queue = libc.mq_open(name, os.O_RDONLY | os.O_NONBLOCK)
    if queue < 0:
        return None
    buffer = ctypes.create_string_buffer(64)
    size = libc.mq_receive(queue, buffer, 64, None)
    return buffer.raw[:size] if size > 0 else b""
'''


async def test_posix_message_queues_do_not_reach_the_next_run(sandbox, token):
    names = [f"/lats-{token}-{index}".encode() for index in range(5)]
    plant = MQUEUE + "".join(f"plant({name!r}, b'secret-{token}')\n" for name in names)
    look = MQUEUE + f"print('FOUND', [look(name) for name in {names!r} if look(name) is not None])\n"
    try:
        planted = await run(sandbox, plant)
        assert planted.status == "ok", planted
        if sandbox.secure:  # POSIX queues are refused in a sandbox (their bytes are counted host-wide)
            assert len(marked(planted, "blocked mq_open")) == len(names), planted.stdout
        else:
            assert len(marked(planted, "PLANTED")) == len(names), planted.stdout
        looked = await run(sandbox, look)
    finally:
        if not sandbox.secure:
            for name in names:
                kernel_objects.remove_mqueue(name.decode())
    found = marked(looked, "FOUND")[0]
    expect_contained(sandbox, [] if found == "FOUND []" else [found])
    await assert_still_judges(sandbox)


# ------------------------------------------------------------------ what the findings did with them

NOTES = r'''
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
class Message(ctypes.Structure):
    _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * 256)]
class Attributes(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_long), ("maxmsg", ctypes.c_long), ("msgsize", ctypes.c_long),
                ("curmsgs", ctypes.c_long), ("reserved", ctypes.c_long * 4)]
def read_notes():
    """Whatever an earlier run left: a /dev/shm file, a POSIX queue or a System V queue."""
    try:
        with open(FILE) as handle:
            return handle.read()
    except OSError:
        pass
    queue = libc.mq_open(QUEUE, os.O_RDONLY | os.O_NONBLOCK)
    if queue >= 0:
        buffer = ctypes.create_string_buffer(256)
        size = libc.mq_receive(queue, buffer, 256, None)
        if size > 0:
            return buffer.raw[:size].decode()
    ident = libc.msgget(KEY, 0)
    message = Message()
    if ident >= 0 and libc.msgrcv(ident, ctypes.byref(message), 256, 0, 0o4000) > 0:
        return message.mtext.decode()
    return ""
def write_notes(text):
    try:
        with open(FILE, "w") as handle:
            handle.write(text)
    except OSError:
        pass
    libc.mq_unlink(QUEUE)
    queue = libc.mq_open(QUEUE, os.O_CREAT | os.O_RDWR, 0o600, ctypes.byref(Attributes(0, 1, 256)))
    if queue >= 0:
        libc.mq_send(queue, text.encode(), len(text), 0)
    ident = libc.msgget(KEY, 0o1600)
    if ident >= 0:
        message = Message()
        while libc.msgrcv(ident, ctypes.byref(message), 256, 0, 0o4000) > 0:
            pass
        libc.msgsnd(ident, ctypes.byref(Message(1, text.encode())), 256, 0o4000)
'''

LEARN_THE_ANSWERS = NOTES + r'''
known, _, last = read_notes().partition(";")  # the answers known, and how the last run's guess went
if last:
    guess, _, reached = last.partition(";")
    known += guess if reached == "1" else ("F" if guess == "T" else "T")
write_notes(known + ";T;0")  # this run guesses True for the first answer it does not know
def f(index):
    if index < len(known):
        return known[index] == "T"
    if index == len(known) + 1:  # the guess was right: the check went on
        write_notes(known + ";T;1")
    return True
'''


def hidden_check(answers: list[bool]) -> str:
    lines = [f"    assert candidate({index}) is {answer}" for index, answer in enumerate(answers)]
    return "def check(candidate):\n" + "\n".join(lines) + "\n\ncheck(f)\n"


async def test_a_program_that_knows_nothing_cannot_learn_the_hidden_answers_across_runs(sandbox, token):
    """The first finding end to end: one answer a run, learnt from notes earlier runs of it left."""
    answers = [True, False, False, True, False, True]
    values = f"FILE, QUEUE, KEY = '/dev/shm/lats-learn-{token}', b'/lats-learn-{token}', {random.randrange(1 << 24, 1 << 30)}\n"
    key = int(values.rsplit(", ", 1)[1])
    program = values + LEARN_THE_ANSWERS
    passed_at = None
    try:
        for attempt in range(1, len(answers) + 3):
            result = await run(sandbox, program, (hidden_check(answers),), entry_points=("f",))
            assert result.status == "ok", result
            if result.all_passed:
                passed_at = attempt
                break
    finally:
        if not sandbox.secure:
            kernel_objects.remove_file(f"/dev/shm/lats-learn-{token}")
            kernel_objects.remove_mqueue(f"/lats-learn-{token}")
            kernel_objects.remove_sysv_keys(key, 1)
    expect_contained(sandbox, [f"passed the hidden tests on try {passed_at}"] if passed_at else [])


REMEMBER_THE_ARGUMENTS = NOTES + r'''
def f(text):
    write_notes(text)
    return len(text)
print("NOTES", repr(read_notes()))
'''


async def test_hidden_test_arguments_do_not_reach_a_later_run(sandbox, token):
    secret = f"hidden-{token}"
    key = random.randrange(1 << 24, 1 << 30)
    program = f"FILE, QUEUE, KEY = '/dev/shm/lats-args-{token}', b'/lats-args-{token}', {key}\n" + REMEMBER_THE_ARGUMENTS
    try:
        scored = await run(sandbox, program, (f"assert f({secret!r}) == {len(secret)}",))
        assert scored.all_passed, scored
        later = await run(sandbox, program)
    finally:
        if not sandbox.secure:
            kernel_objects.remove_file(f"/dev/shm/lats-args-{token}")
            kernel_objects.remove_mqueue(f"/lats-args-{token}")
            kernel_objects.remove_sysv_keys(key, 1)
    assert later.status == "ok", later
    expect_contained(sandbox, [line for line in marked(later, "NOTES") if secret in line])


PIN_MEMORY = r'''
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
pinned = 0
for key in range(BASE, BASE + SEGMENTS):
    ident = libc.shmget(key, SEGMENT, 0o1600)
    address = libc.shmat(ident, None, 0) if ident >= 0 else None
    if address and address != ctypes.c_void_p(-1).value:
        ctypes.memset(address, 1, SEGMENT)  # touched: really held
        libc.shmdt(ctypes.c_void_p(address))
        pinned += SEGMENT >> 20
try:
    with open("pinned", "wb") as handle:  # a tmpfs file holds memory as well
        handle.write(b"1" * (96 << 20))
        pinned += 96
except OSError as error:
    print("no file", error)
print("PINNED %d MB" % pinned)
'''


async def test_memory_a_run_pins_is_given_back_before_the_next_run(sandbox, token):
    """Shared-memory segments and tmpfs files outlive their process; the next run's cap must be its own."""
    base = random.randrange(1 << 24, 1 << 30)
    values = f"BASE, SEGMENTS, SEGMENT = {base}, 6, 128 << 20\n"
    try:
        pinned = await run(sandbox, values + PIN_MEMORY, limits=Limits(memory_bytes=1 << 30, wall_seconds=20))
        assert pinned.status == "ok" and marked(pinned, "PINNED"), pinned
        left = sum(1 for key in kernel_objects.sysv_keys("shm") if base <= key < base + 6)
        needs_150_mb = "block = bytearray(150 << 20)\nblock[::4096] = b'1' * len(block[::4096])\ndef f():\n    return 1\n"
        later = [await run(sandbox, needs_150_mb, ("assert f() == 1",), Limits(memory_bytes=256 << 20)) for _ in range(3)]
    finally:
        if not sandbox.secure:
            kernel_objects.remove_sysv_keys(base, 6)
    assert all(result.all_passed for result in later), [result.status for result in later]
    expect_contained(sandbox, [f"{left} pinned segments outlived the run"] if left else [])


# ------------------------------------------------------------------ counters: what a later run can read off them

READ_THE_COUNTERS = r'''
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def inode(directory):
    path = os.path.join(directory, "probe-%d" % os.getpid())
    try:
        with open(path, "w"):
            pass
        number = os.stat(path).st_ino
        os.unlink(path)
        return number
    except OSError:
        return None
def ipc_id():
    ident = libc.msgget(0, 0o600)  # IPC_PRIVATE
    if ident < 0:
        return None
    libc.msgctl(ident, 0, None)
    return (ident >> 15) * 64 + (ident & 0x7FFF)  # seq and slot: the count of queues made
def packets():
    try:
        with open("/proc/net/dev") as handle:
            row = next(line for line in handle if line.strip().startswith("lo:"))
        return int(row.split(":")[1].split()[1])
    except (OSError, StopIteration, ValueError, IndexError):
        return None
print("COUNTERS", {"pid": os.getpid(), "tmp inode": inode("/tmp") if os.access("/tmp", os.W_OK) else None,
                   "work inode": inode("."), "shm inode": inode("/dev/shm"), "ipc": ipc_id(), "packets": packets()})
'''

MOVE_THE_COUNTERS = r'''
import ctypes, os, socket
libc = ctypes.CDLL(None, use_errno=True)
for index in range(K):
    for directory in (".", "/dev/shm", "/tmp"):
        try:
            path = os.path.join(directory, "move-%d-%d" % (os.getpid(), index))
            open(path, "w").close()
            os.unlink(path)
        except OSError:
            pass
    ident = libc.msgget(0, 0o600)
    if ident >= 0:
        libc.msgctl(ident, 0, None)
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
try:
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for index in range(K):
        sender.sendto(b"x", ("127.0.0.1", 9))
    print("sent")
except OSError as error:
    print("no socket:", error)
'''


def counters(result) -> dict:
    line = marked(result, "COUNTERS")[0]
    return eval(line.split(" ", 1)[1])  # noqa: S307  (a dict of ints printed by our own probe)


async def test_counters_a_run_moves_tell_a_later_run_nothing(sandbox):
    """Inode numbers, System V ids, pids and packet counts moved K times: can a later run read K off them?

    The probe runs before and after a quiet run, then after one that moved
    every counter K times (K random); a counter tells K when its step over the
    busy run is at least K more than its step over the quiet one.
    """
    k = random.randrange(150, 300)
    first = counters(await run(sandbox, READ_THE_COUNTERS))
    await run(sandbox, "x = 1\n")
    second = counters(await run(sandbox, READ_THE_COUNTERS))
    moved = await run(sandbox, f"K = {k}\n" + MOVE_THE_COUNTERS, limits=Limits(wall_seconds=20, cpu_seconds=20))
    assert moved.status == "ok", moved
    third = counters(await run(sandbox, READ_THE_COUNTERS))
    wins = []
    for name in first:
        if None in (first[name], second[name], third[name]):
            continue
        quiet, busy = second[name] - first[name], third[name] - second[name]
        exact = name != "pid" and name != "packets"  # other processes on the host move those too
        if (busy - quiet == k) if exact else (busy - quiet >= k):
            wins.append(f"{name} moved by {busy} after the busy run, {quiet} after the quiet one (K = {k})")
    expect_contained(sandbox, wins)


# ------------------------------------------------------------------ keyrings, sockets, timers

KEYRING = r'''
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
SYS_ADD_KEY, SYS_KEYCTL, KEY_SPEC_USER_KEYRING, KEYCTL_SEARCH, KEYCTL_READ = 248, 250, -4, 10, 11
'''


async def test_keys_do_not_reach_a_later_run(sandbox, token):
    """The user keyring outlives every process of its uid: keyrings are out of the sandbox's reach."""
    plant = KEYRING + (
        f"serial = libc.syscall(SYS_ADD_KEY, b'user', b'lats-{token}', b'secret-{token}', 13, KEY_SPEC_USER_KEYRING)\n"
        "print('SERIAL', serial, ctypes.get_errno())\n"
    )
    look = KEYRING + (
        f"serial = libc.syscall(SYS_KEYCTL, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, b'user', b'lats-{token}', 0)\n"
        "buffer = ctypes.create_string_buffer(64)\n"
        "size = libc.syscall(SYS_KEYCTL, KEYCTL_READ, serial, buffer, 64) if serial > 0 else -1\n"
        "print('FOUND', buffer.raw[:size] if size > 0 else None)\n"
    )
    planted = await run(sandbox, plant)
    serial = int(marked(planted, "SERIAL")[0].split()[1])
    try:
        if not sandbox.secure and serial < 0:
            pytest.skip("this host itself refuses the keyring calls (a container's seccomp profile)")
        looked = await run(sandbox, look)
    finally:
        if serial > 0 and not sandbox.secure:
            kernel_objects.invalidate_key(serial)
    found = marked(looked, "FOUND")[0]
    expect_contained(sandbox, [] if found == "FOUND None" else [found])


class AbstractListener:
    """A listener on an abstract unix socket of the host's network namespace, counting connections."""

    def __init__(self, name: str):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind("\0" + name)
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self):
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self):
        self._stop.set()
        self._thread.join()
        self.sock.close()


CONNECT_ABSTRACT = r'''
import socket
def reach(name):
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.connect("\0" + name)
        return True
    except OSError:
        return False
'''

LEAVE_A_LISTENER = r'''
import os, socket, time
if os.fork() == 0:
    try:
        os.setsid()  # where the sandbox allows it
    except OSError:
        pass
    if os.fork() == 0:
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind("\0" + NAME)
        server.listen(8)
        time.sleep(300)
    os._exit(0)
time.sleep(0.3)
'''


async def test_abstract_sockets_reach_neither_the_host_nor_a_later_run(sandbox, token):
    """Abstract unix sockets live in a network namespace: the host's are out of reach, a run's die with it."""
    listener = AbstractListener(f"lats-host-{token}")
    try:
        result = await run(sandbox, CONNECT_ABSTRACT + f"print('HOST', reach('lats-host-{token}'))\n")
    finally:
        listener.close()
    assert result.status == "ok", result
    left = await run(sandbox, f"NAME = 'lats-left-{token}'\n" + LEAVE_A_LISTENER)
    assert left.status == "ok", left
    later = await run(sandbox, CONNECT_ABSTRACT + f"print('LATER', reach('lats-left-{token}'))\n")
    assert marked(later, "LATER") == ["LATER False"]  # every backend: the listener died with its run
    expect_contained(sandbox, [f"{listener.connections} connection(s) to the host"] if listener.connections else [])


LEAVE_TIMERS = r'''
import os, signal, threading, time
def fire(*_):
    for directory in (".", "/dev/shm", "/tmp"):
        try:
            open(os.path.join(directory, "fired-" + TOKEN), "w").close()
        except OSError:
            pass
if os.fork() == 0:
    try:
        os.setsid()  # where the sandbox allows it
    except OSError:
        pass
    if os.fork() == 0:
        signal.signal(signal.SIGALRM, fire)
        signal.setitimer(signal.ITIMER_REAL, 0.8, 0.2)
        threading.Timer(0.8, fire).start()
        time.sleep(300)
    os._exit(0)
'''

WAIT_FOR_TIMERS = r'''
import os, time
time.sleep(1.6)
print("FIRED", [d for d in (".", "/dev/shm", "/tmp") if os.path.exists(os.path.join(d, "fired-" + TOKEN))])
'''


async def test_timers_a_run_arms_never_fire_into_a_later_run(sandbox, token):
    """Timers belong to processes, and every process of a run dies with it (on every backend)."""
    armed = await run(sandbox, f"TOKEN = {token!r}\n" + LEAVE_TIMERS)
    assert armed.status == "ok", armed
    later = await run(sandbox, f"TOKEN = {token!r}\n" + WAIT_FOR_TIMERS, limits=Limits(wall_seconds=5))
    assert marked(later, "FIRED") == ["FIRED []"], later.stdout
    for directory in ("/dev/shm", "/tmp"):
        kernel_objects.remove_file(f"{directory}/fired-{token}")
    await assert_still_judges(sandbox)


# ------------------------------------------------------------------ the files the worker itself cleans


async def test_a_directory_tree_too_deep_to_recurse_into_is_removed(sandbox):
    """3,000 levels (deeper than Python's recursion and than PATH_MAX): every backend empties it and goes on."""
    tops = (".", "/tmp", "/dev/shm") if sandbox.secure else (".",)  # the control's /tmp is the host's
    program = (
        "import os\n"
        f"for top in {tops!r}:\n"
        "    try:\n"
        "        fd = os.open(top, os.O_RDONLY)\n"
        "    except OSError:\n"
        "        continue\n"
        "    for level in range(3000):\n"
        "        try:\n"
        "            os.mkdir('d', dir_fd=fd)\n"
        "            inner = os.open('d', os.O_RDONLY, dir_fd=fd)\n"
        "        except OSError:\n"
        "            break\n"
        "        os.close(fd)\n"
        "        fd = inner\n"
        "    os.close(fd)\n"
        "os.chmod('d', 0)\n"
        "print('deep')\n"
    )
    started = time.monotonic()
    result = await run(sandbox, program, limits=Limits(wall_seconds=20, cpu_seconds=20))
    assert result.status == "ok" and "deep" in result.stdout, result
    for _ in range(3):
        await assert_still_judges(sandbox)
    look = await run(sandbox, "import os\nprint('LEFT', os.listdir('.'))\n")
    assert marked(look, "LEFT") == ["LEFT []"], look
    assert time.monotonic() - started < 60
