"""Each run has namespaces of its own: what a run makes there dies with it, whatever the pristine check says.

Issue 36, finding 1: the pristine check probed one System V id per kind, and a
program that wound the kernel's id counter back to where the probe looked
kept a message queue past it, on a worker that was never retired: a covert
channel between episodes. The fix is by construction: on bwrap each run's
judge makes fresh IPC, network and mount namespaces (System V objects, POSIX
queues, abstract sockets, a fresh tmpfs on /tmp and /dev/shm, a fresh queue
filesystem where the sandbox mounted one: docker's /dev/mqueue, through which a
run could make a queue by path in the worker's IPC namespace) before any
process of the run exists, and the kernel frees them with the run.

The hazards here run with the pristine check switched off (`UNCHECKED`: no run
ever retires its worker) or fooled exactly as the attack fooled it
(`PROBE_FOOLED`): run 1 leaves a System V queue, semaphore set and segment,
and (check off) a POSIX queue and files in the work dir, /tmp and /dev/shm;
run 2, on the same worker (asserted by its host pid), looks for them every
way it can and must find none. The unsandboxed control (the
process backend, which shares the host's IPC namespace) finds them, so the
check can fail. On docker too, where the worker makes the run's namespaces in
a user namespace of its own (before, docker's runs had none, and with the check
off objects reached the next run).

A second hazard: the program (and a model-written test) still cannot make or
join any namespace, CLONE_NEWIPC included, though the judge could.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import random
import secrets

import pytest
import pytest_asyncio

from env_servers.sandbox import RunRequest, make_sandbox
from tests.sandbox import kernel_objects
from tests.sandbox.control import SHARED
from tests.sandbox.unchecked import PROBE_FOOLED, UNCHECKED

pytestmark = pytest.mark.asyncio(loop_scope="module")

CASES = [
    pytest.param(("bwrap", UNCHECKED), id="bwrap-unchecked"),
    pytest.param(("bwrap", PROBE_FOOLED), id="bwrap-probe-fooled"),
    pytest.param(("docker", UNCHECKED), id="docker-unchecked"),
    pytest.param(("docker", PROBE_FOOLED), id="docker-probe-fooled"),
    pytest.param(("unsandboxed", SHARED), id="unsandboxed"),
]


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=CASES)
async def sandbox(request):
    backend, design = request.param
    if backend == "docker":
        box = make_sandbox("docker", base_url=request.getfixturevalue("docker_url"), workers=1, design=design)
    elif backend == "unsandboxed":
        box = make_sandbox("process", allow_insecure=True, workers=1, design=design)
    else:
        box = make_sandbox(backend, workers=1, design=design)
    box.checked = design is not UNCHECKED
    yield box
    await box.aclose()


COMMON = r'''
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
class Message(ctypes.Structure):
    _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * 64)]
class Attributes(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_long), ("maxmsg", ctypes.c_long), ("msgsize", ctypes.c_long),
                ("curmsgs", ctypes.c_long), ("reserved", ctypes.c_long * 4)]
IPC_CREAT, IPC_NOWAIT, IPC_STAT = 0o1000, 0o4000, 2
MSG_STAT_ANY, SHM_STAT_ANY, SEM_STAT_ANY = 13, 15, 20
MSG_INFO, SHM_INFO, SEM_INFO = 12, 14, 19
'''

LEAVE = COMMON + r'''
made = {}
queue = libc.msgget(KEY, IPC_CREAT | 0o600)
libc.msgsnd(queue, ctypes.byref(Message(1, MARKER)), 64, IPC_NOWAIT)
private_queue = libc.msgget(0, 0o600)  # IPC_PRIVATE: found only by id
libc.msgsnd(private_queue, ctypes.byref(Message(1, MARKER)), 64, IPC_NOWAIT)
made["msg"] = [queue, private_queue]
made["sem"] = [libc.semget(KEY, 1, IPC_CREAT | 0o600), libc.semget(0, 1, 0o600)]
made["shm"] = [libc.shmget(KEY, 4096, IPC_CREAT | 0o600), libc.shmget(0, 4096, 0o600)]
for ident in made["shm"]:
    address = libc.shmat(ident, None, 0)  # refused in the sandbox (a segment's number is a host-wide counter's)
    if address and address != ctypes.c_void_p(-1).value:
        ctypes.memmove(address, MARKER, len(MARKER))
        libc.shmdt(ctypes.c_void_p(address))
if POSIX:
    posix = libc.mq_open(QUEUE, os.O_CREAT | os.O_RDWR, 0o600, ctypes.byref(Attributes(0, 1, 64)))
    made["mq"] = [posix, libc.mq_send(posix, MARKER, len(MARKER), 0)]
    if os.path.isdir("/dev/mqueue"):  # a queue made by path: it is the mounted filesystem's namespace's
        try:
            with open("/dev/mqueue/left-by-path-" + MARKER.decode(), "w"):
                made["mq"].append(0)
        except OSError:  # a sandbox's run may make no queue at all (hardening.py: mq_open)
            made["mq"].append(-1)
    for directory in (".", "/tmp", "/dev/shm"):  # files: a directory's ctime would retire the worker if checked
        with open(os.path.join(directory, "left-" + MARKER.decode()), "wb") as handle:
            handle.write(MARKER)
        made.setdefault("files", []).append(0)
print("LEFT " + json.dumps(made))
print("MOUNTS " + json.dumps(sorted(line.split()[4] for line in open("/proc/self/mountinfo"))))
'''

LOOK = COMMON + r'''
found = []
for kind in ("msg", "sem", "shm"):  # the namespace's own listing
    try:
        with open("/proc/sysvipc/" + kind) as handle:
            rows = handle.read().splitlines()[1:]
    except OSError as error:
        rows = []
    found += ["listed %s: %s" % (kind, " ".join(row.split()[:2])) for row in rows]
buffer = ctypes.create_string_buffer(512)
for index in range(256):  # ipcs-style: every slot, whoever owns it
    for kind, call in (("msg", lambda: libc.msgctl(index, MSG_STAT_ANY, buffer)),
                       ("shm", lambda: libc.shmctl(index, SHM_STAT_ANY, buffer)),
                       ("sem", lambda: libc.semctl(index, 0, SEM_STAT_ANY, buffer))):
        ident = call()
        if ident >= 0:
            found.append("%s slot %d holds id %d" % (kind, index, ident))
counts = {}
for kind, call in (("msg", lambda: libc.msgctl(0, MSG_INFO, buffer)), ("shm", lambda: libc.shmctl(0, SHM_INFO, buffer)),
                   ("sem", lambda: libc.semctl(0, 0, SEM_INFO, buffer))):
    call()
    counts[kind] = int.from_bytes(buffer.raw[28:32] if kind == "sem" else buffer.raw[0:4], "little")
found += ["%d %s objects in use" % (count, kind) for kind, count in counts.items() if count]
message = Message()
for kind, ident in [("msg", i) for i in LEFT["msg"]] + [("msg-key", libc.msgget(KEY, 0))]:
    if ident >= 0 and libc.msgrcv(ident, ctypes.byref(message), 64, 0, IPC_NOWAIT) > 0:
        found.append("read %r from queue %d (%s)" % (message.mtext, ident, kind))
for ident in LEFT["shm"] + [libc.shmget(KEY, 0, 0)]:
    address = libc.shmat(ident, None, 0) if ident >= 0 else None
    if address and address != ctypes.c_void_p(-1).value:
        found.append("attached segment %d: %r" % (ident, ctypes.string_at(address, len(MARKER))))
        libc.shmdt(ctypes.c_void_p(address))
for ident in LEFT["sem"] + [libc.semget(KEY, 0, 0)]:
    if ident >= 0 and libc.semctl(ident, 0, IPC_STAT, buffer) >= 0:
        found.append("semaphore set %d" % ident)
posix = libc.mq_open(QUEUE, os.O_RDONLY | os.O_NONBLOCK)
if posix >= 0:
    text = ctypes.create_string_buffer(64)
    size = libc.mq_receive(posix, text, 64, None)
    found.append("POSIX queue %r: %r" % (QUEUE, text.raw[: max(0, size)]))
for directory in ("/dev/mqueue",):
    try:
        found += ["%s lists %s" % (directory, name) for name in os.listdir(directory)]
    except OSError:
        pass
for directory in (".", "/tmp", "/dev/shm"):
    try:
        found += ["%s holds %s" % (directory, name) for name in os.listdir(directory) if MARKER.decode() in name]
    except OSError:
        pass
print("FOUND " + json.dumps(found))
print("MOUNTS " + json.dumps(sorted(line.split()[4] for line in open("/proc/self/mountinfo"))))
'''


def marked(result, prefix: str) -> str:
    lines = [line for line in result.stdout.splitlines() if line.startswith(prefix)]
    assert len(lines) == 1, result
    return lines[0][len(prefix) :]


def remove_from_host(left: dict, key: int, queue: bytes, marker: str) -> None:
    """The control's objects and files are the host's: remove them by key, by id and by name."""
    libc = ctypes.CDLL(None, use_errno=True)
    kernel_objects.remove_sysv_keys(key, 1)
    for ident in left.get("msg", []):
        libc.msgctl(ident, 0, None)
    for ident in left.get("shm", []):
        libc.shmctl(ident, 0, None)
    for ident in left.get("sem", []):
        libc.semctl(ident, 0, 0)
    kernel_objects.remove_mqueue(queue.decode())
    with contextlib.suppress(OSError):
        os.unlink("/dev/mqueue/left-by-path-" + marker)
    for directory in ("/tmp", "/dev/shm"):
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(directory, "left-" + marker))


async def test_ipc_objects_a_run_leaves_are_gone_for_the_next_run_on_the_same_worker(sandbox):
    token = secrets.token_hex(6)
    key = random.randrange(1 << 24, 1 << 30)
    queue = f"/lats-ns-{token}".encode()
    # With the probe fooled, the attack's own shape: System V objects only (the pristine
    # check also watches the POSIX queues' directory where the sandbox has one).
    values = f"KEY, QUEUE, MARKER, POSIX = {key}, {queue!r}, b'marker-{token}', {not sandbox.checked}\n"
    left = {}
    try:
        leaving = await sandbox.run(RunRequest(program=values + LEAVE, tests=("assert True",)))
        assert leaving.status == "ok", leaving
        left = json.loads(marked(leaving, "LEFT "))
        refused = {"mq"} if sandbox.secure else set()  # a sandbox's run may make no POSIX queue (hardening.py)
        assert all(ident >= 0 for kind, idents in left.items() if kind not in refused for ident in idents), left
        workers = sandbox.worker_host_pids()
        looking = await sandbox.run(RunRequest(program=values + f"LEFT = {left!r}\n" + LOOK, tests=("assert True",)))
        same_worker = workers and sandbox.worker_host_pids() == workers
    finally:
        if not sandbox.secure:
            remove_from_host(left, key, queue, f"marker-{token}")
    assert looking.status == "ok", looking
    found = json.loads(marked(looking, "FOUND "))
    if not sandbox.secure:
        assert any(token in line for line in found), "the control found nothing, so this check could never fail"
        return
    assert found == [], f"{sandbox.name}: the next run found {found}"
    if not sandbox.checked:
        assert same_worker, "the worker was replaced: the check was meant to be off"
    # nothing a run mounts (its fresh tmpfs) propagates to the worker's namespace, where it would stack up
    assert marked(looking, "MOUNTS ") == marked(leaving, "MOUNTS "), (leaving.stdout, looking.stdout)


SEPARATE = r'''
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
FLAGS = {"NEWNS": 0x00020000, "NEWCGROUP": 0x02000000, "NEWUTS": 0x04000000, "NEWIPC": 0x08000000,
         "NEWUSER": 0x10000000, "NEWPID": 0x20000000, "NEWNET": 0x40000000, "NEWTIME": 0x00000080,
         "NEWUSER|NEWIPC": 0x18000000, "NEWIPC|NEWNS": 0x08020000, "NEWIPC|high bit": 0x08000000 | (1 << 32),
         "NEWIPC|NEWNET|NEWNS (what the judge makes)": 0x48020000}
def escapes():
    wins = []
    for name, flag in FLAGS.items():
        if libc.syscall(272, ctypes.c_ulong(flag)) == 0:  # unshare, the raw call
            wins.append("unshare(%s)" % name)
    # any namespace (nstype 0), and a PID namespace: what the supervisor's filter lets through (its own,
    # after each judge's fork)
    joins = [(path, 0) for path in ("/proc/self/ns/ipc", "/proc/1/ns/ipc", "/proc/%d/ns/ipc" % os.getppid(),
                                    "/proc/self/ns/user")]
    joins += [(path, 0x20000000) for path in ("/proc/self/ns/pid", "/proc/self/ns/pid_for_children", "/proc/1/ns/pid")]
    for path, nstype in joins:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        if libc.setns(fd, nstype) == 0:
            wins.append("setns(%s, %#x)" % (path, nstype))
        os.close(fd)
    for name in ("NEWIPC", "NEWUSER"):
        pid = libc.syscall(56, ctypes.c_ulong(FLAGS[name] | 17), None, None, None, None)  # clone(flags | SIGCHLD)
        if pid == 0:
            os._exit(0)
        if pid > 0:
            os.waitpid(pid, 0)
            wins.append("clone(CLONE_%s)" % name)
    # mount with exactly the judge's flags (MS_NOSUID | MS_NODEV), on a path that does not exist: the filter
    # answers EPERM before the kernel looks; any other answer means the call reached the kernel
    if libc.mount(b"tmpfs", b"/nonexistent-lats-mount-point", b"tmpfs", ctypes.c_ulong(6), None) != 0:
        if ctypes.get_errno() != 1:
            wins.append("mount reached the kernel (errno %d)" % ctypes.get_errno())
    else:
        wins.append("mount")
    with open("/proc/self/status") as status:
        for line in status:
            if line.split(":")[0] in ("CapInh", "CapPrm", "CapEff", "CapAmb") and int(line.split()[1], 16) >> 21 & 1:
                wins.append("CAP_SYS_ADMIN in " + line.split(":")[0])
    return wins
'''


async def test_a_program_and_its_own_tests_still_cannot_make_or_join_a_namespace(sandbox):
    program = SEPARATE + "print('PROGRAM', escapes())\ndef f():\n    return 1\n"
    model_test = SEPARATE + "assert escapes() == [], escapes()\n"
    result = await sandbox.run(RunRequest(program=program, tests=("assert f() == 1",), untrusted_tests=(model_test,)))
    assert result.status == "ok", result
    wins = marked(result, "PROGRAM ")
    if not sandbox.secure:
        assert wins != "[]", "the control made no namespace, so this check could never fail"
        return
    assert wins == "[]", f"{sandbox.name}: the program got {wins}"
    assert [outcome.passed for outcome in result.tests] == [True, True], result.tests


UNNAMED_FILES = r'''
import os
def unnamed_files():
    made = []
    for directory in (".", "/tmp", "/dev/shm"):
        try:
            os.close(os.open(directory, os.O_TMPFILE | os.O_RDWR, 0o600))
            made.append(directory)
        except OSError as error:
            pass
    return made
'''


async def test_a_run_cannot_make_a_tmpfs_file_no_directory_shows(sandbox):
    """O_TMPFILE makes a tmpfs inode without an entry: no watched directory's ctime moves, yet the
    tmpfs inode counter does, and a later run reads it off its next file. The filter refuses it
    (EOPNOTSUPP, so Python's tempfile falls back to a named file)."""
    program = UNNAMED_FILES + "print('MADE', unnamed_files())\nimport tempfile\ntempfile.TemporaryFile().write(b'x')\n"
    model_test = UNNAMED_FILES + "assert unnamed_files() == [], unnamed_files()\n"
    result = await sandbox.run(RunRequest(program=program, tests=("assert True",), untrusted_tests=(model_test,)))
    assert result.status == "ok", result
    made = marked(result, "MADE ")
    if not sandbox.secure:
        assert made != "[]", "the control made no unnamed file, so this check could never fail"
        return
    assert made == "[]", f"{sandbox.name}: the program made unnamed files in {made}"
    assert [outcome.passed for outcome in result.tests] == [True, True], result.tests
