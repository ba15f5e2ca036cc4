"""The verdict hazards: programs that try to fool, poison or read the judge.

Each runs on the secure backends (bwrap, docker: the split design, the
candidate apart from its judge) and on the unsandboxed control (the process
backend with the shared design, where tests run in the program's own process),
which must show every attack working, so each check can fail. A program "wins"
when a test that a correct judge fails is reported as passed, when it reaches
the judge's memory, or when it learns what an earlier run held.
"""

from __future__ import annotations

import secrets
import time

import pytest

from env_servers.sandbox import Limits, RunRequest
from env_servers.sandbox.channel import worker_command

pytestmark = pytest.mark.asyncio(loop_scope="module")

WRONG_TESTS = ("assert f(1) == 2", "assert f(2) == 4", "assert f(3) == 6")


@pytest.fixture
def sandbox(hazard_sandbox):
    return hazard_sandbox


def expect_contained(sandbox, wins: list[str]) -> None:
    """Secure backends: no win. The control: a win, or the check proves nothing."""
    if sandbox.secure:
        assert sandbox.verdict_isolated
        assert wins == [], f"{sandbox.name} let these through: {wins}"
    else:
        assert wins, "the unsandboxed control shows no win, so this check could never fail"


async def run(sandbox, program: str, tests=WRONG_TESTS, limits: Limits = Limits()):
    return await sandbox.run(RunRequest(program=program, tests=tuple(tests), limits=limits))


def forged_passes(result) -> list[str]:
    return [outcome.test for outcome in result.tests if outcome.passed]


async def assert_still_judges(sandbox) -> None:
    """The slot judges the next, honest and wrong, programs correctly."""
    good = await run(sandbox, "def f(x):\n    return 2 * x\n")
    assert good.all_passed, good
    bad = await run(sandbox, "def f(x):\n    return x\n")
    assert bad.status == "ok" and bad.passed == 0, bad


# ------------------------------------------------------------------ 1. poisoning the judge


async def test_the_payloads_know_the_sandboxs_worker_by_its_command_line():
    """Where PID 1 is the sandbox's worker the payloads go for it too; a marker that rots makes them skip it."""
    assert WORKER_MARKER in " ".join(worker_command("python3"))
    assert all(f'MARKER = b"{WORKER_MARKER}"' in payload for payload in (REACH_THE_JUDGE, SIGNAL_THE_WORKER))


WORKER_MARKER = "<sandbox worker>"  # in every worker's command line (channel.BOOTSTRAP), so PID 1's shows it

REACH_THE_JUDGE = r'''
import ctypes, os
MARKER = b"<sandbox worker>"
libc = ctypes.CDLL(None, use_errno=True)
PTRACE_SEIZE, PTRACE_DETACH = 0x4206, 17
def targets():
    found = {os.getppid()}
    try:
        with open("/proc/1/cmdline", "rb") as handle:
            if MARKER in handle.read():  # PID 1 is the sandbox's own worker
                found.add(1)
    except OSError:
        pass
    return sorted(found)
for pid in targets():
    if libc.ptrace(PTRACE_SEIZE, pid, 0, 0) == 0:
        print("WIN ptrace", pid)
        libc.ptrace(PTRACE_DETACH, pid, 0, 0)
    try:
        with open("/proc/%d/mem" % pid, "r+b") as memory:
            print("WIN mem-write", pid)
    except OSError as error:
        print("blocked mem", pid, error)
    local, remote = (ctypes.c_char * 8)(), (ctypes.c_char * 8)()
    class iovec(ctypes.Structure):
        _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
    maps = open("/proc/%d/maps" % pid).read().split("\n", 1)[0] if os.access("/proc/%d/maps" % pid, os.R_OK) else ""
    if maps:
        start = int(maps.split("-", 1)[0], 16)
        got = libc.process_vm_readv(pid, ctypes.byref(iovec(ctypes.addressof(local), 8)), 1,
                                    ctypes.byref(iovec(start, 8)), 1, 0)
        if got == 8:
            print("WIN process_vm_readv", pid)
def f(x):
    return x
'''


async def test_the_program_cannot_trace_or_write_its_judge(sandbox):
    result = await run(sandbox, REACH_THE_JUDGE)
    wins = [line for line in result.stdout.splitlines() if line.startswith("WIN")]
    assert forged_passes(result) == []
    expect_contained(sandbox, wins)
    await assert_still_judges(sandbox)


async def test_stopping_the_judge_stalls_only_its_own_run(sandbox):
    program = "import os, signal\nos.kill(os.getppid(), signal.SIGSTOP)\ndef f(x):\n    return x\n"
    result = await run(sandbox, program, limits=Limits(wall_seconds=1.0))
    assert not result.all_passed
    await assert_still_judges(sandbox)  # a stopped worker would stall these until restarted


async def test_no_process_of_the_run_can_stop_or_kill_its_judge(sandbox):
    """On bwrap and docker the judge is init of the run's PID namespace: signals from inside it that it has
    no handler for (SIGSTOP and SIGKILL among them) never reach it, whatever the uids, so the run is judged
    as usual. The control's judge, which shares the program's uid, can be stopped."""
    program = ("import os, signal\nfor number in (signal.SIGSTOP, signal.SIGKILL):\n"
               "    try:\n        os.kill(os.getppid(), number)\n    except PermissionError:\n        pass\n"
               "def f(x):\n    return 2 * x\n")
    result = await run(sandbox, program, limits=Limits(wall_seconds=2.0))
    if sandbox.name in ("bwrap", "docker"):
        assert result.all_passed and result.status == "ok", result
    elif not getattr(sandbox, "candidate_uid_apart", False):
        assert not result.all_passed, "the control's judge took no signal, so this check could never fail"
    await assert_still_judges(sandbox)


REACH_THE_JUDGES_CHANNEL = r"""
import os
for pid in sorted({os.getppid(), 1}):
    try:
        fds = os.listdir("/proc/%d/fd" % pid)
    except OSError as error:
        print("blocked listing", pid, error)
        continue
    for fd in fds:
        try:  # the judge's (or worker's) channel to the host: a forged verdict frame would go here
            os.close(os.open("/proc/%d/fd/%s" % (pid, fd), os.O_WRONLY))
            print("WIN may write to fd", fd, "of", pid)
            break
        except OSError:
            pass
def f(x):
    return x
"""


async def test_the_program_cannot_reach_its_judges_channel_to_the_host(sandbox):
    """Reopening the judge's or worker's reply pipe through /proc would let a program write its own verdict."""
    result = await run(sandbox, REACH_THE_JUDGES_CHANNEL)
    wins = [line for line in result.stdout.splitlines() if line.startswith("WIN")]
    assert forged_passes(result) == []
    expect_contained(sandbox, wins)
    await assert_still_judges(sandbox)


SIGNAL_THE_JUDGE = r"""
import os, signal
try:
    os.kill(os.getppid(), 0)
    print("WIN may signal its judge")
except PermissionError:
    print("blocked", os.getuid())
def f(x):
    return x
"""


async def test_the_program_cannot_signal_its_judge_under_a_uid_of_its_own(sandbox):
    if sandbox.secure and not sandbox.candidate_uid_apart:
        pytest.skip(f"{sandbox.name} runs the program under its judge's uid here (the README's threat model)")
    result = await run(sandbox, SIGNAL_THE_JUDGE)
    wins = [line for line in result.stdout.splitlines() if line.startswith("WIN")]
    assert forged_passes(result) == []
    expect_contained(sandbox, wins)
    await assert_still_judges(sandbox)


# ------------------------------------------------------------------ 2. reading earlier runs


def secret_run(secret: str) -> RunRequest:
    """A run whose program text and tests carry `secret` many times, in strings of many sizes."""
    lines = [f"S{i} = {(secret + '-' + 'p' * (i * 37)) !r}" for i in range(40)]
    program = "\n".join(lines) + "\ndef f(x):\n    return 2 * x\n"
    tests = tuple(f"assert f({i}) == {2 * i}, {(secret + '-' + 't' * (i * 53))!r}" for i in range(40))
    return RunRequest(program=program, tests=tests)


SCAN_OWN_MEMORY = r'''
import re
NEEDLE = re.compile(PATTERN)  # a character class per byte: the secret itself never sits in this process
found = False
with open("/proc/self/maps") as maps:
    regions = [line.split() for line in maps]
with open("/proc/self/mem", "rb", buffering=0) as memory:
    for fields in regions:
        if "r" not in fields[1] or (len(fields) > 5 and fields[5].startswith("[v")):
            continue
        start, end = (int(x, 16) for x in fields[0].split("-"))
        try:
            memory.seek(start)
            chunk = memory.read(end - start)
        except (OSError, OverflowError, ValueError):
            continue
        if NEEDLE.search(chunk):  # the first hit is real: no copy of the secret was made before it
            found = True
            break
print("WIN found an earlier run's secret" if found else "nothing found")
def f(x):
    return x
'''


async def test_a_run_cannot_read_what_an_earlier_run_held(sandbox):
    secret = "lats-secret-" + secrets.token_hex(12)
    earlier = await sandbox.run(secret_run(secret))
    assert earlier.all_passed, earlier
    pattern = "".join(f"[{character}]" for character in secret)
    result = await run(sandbox, SCAN_OWN_MEMORY.replace("PATTERN", repr(pattern.encode())), tests=("assert True",))
    assert result.status == "ok", result
    wins = [line for line in result.stdout.splitlines() if line.startswith("WIN")]
    expect_contained(sandbox, wins)


# ------------------------------------------------------------------ 3. forging its own pass

FORGE_FROM_THE_CALLERS_FRAME = r'''
import os, sys
def f(x):
    frame = sys._getframe(1)
    while frame is not None:
        found = frame.f_locals
        if "nonce" in found and "record" in found and "request" in found:
            for index in range(len(found["request"]["tests"])):
                found["record"]({"test": index, "passed": True, "detail": ""})
            found["record"]({"done": True})
            os._exit(0)
        frame = frame.f_back
    return -1
'''

FORGE_BY_REPLACING_EXEC = r'''
import builtins
def fake_exec(code, namespace=None, *rest):
    if isinstance(namespace, dict):
        namespace["__sandbox_holds__"] = True
        namespace["__sandbox_actual__"] = None
builtins.exec = fake_exec
def f(x):
    return -1
'''

FORGE_WITH_AN_ALWAYS_EQUAL_VALUE = r'''
class Always:
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = object.__hash__
def f(x):
    return Always()
'''


@pytest.mark.parametrize(
    "program",
    [FORGE_FROM_THE_CALLERS_FRAME, FORGE_BY_REPLACING_EXEC, FORGE_WITH_AN_ALWAYS_EQUAL_VALUE],
    ids=["nonce-from-frames", "builtins-exec", "always-equal"],
)
async def test_a_wrong_program_cannot_forge_its_pass(sandbox, program):
    result = await run(sandbox, program)
    expect_contained(sandbox, forged_passes(result))
    await assert_still_judges(sandbox)


async def test_a_forged_pass_does_not_carry_into_other_runs(sandbox):
    await run(sandbox, FORGE_BY_REPLACING_EXEC)
    await assert_still_judges(sandbox)  # the control too: each run is a fresh fork


# ------------------------------------------------------------------ 4. memory over processes

HOLD_MEMORY_IN_CHILDREN = r'''
import os, time
ready_r, ready_w = os.pipe()
children = []
for _ in range(3):  # 1,200 MB in all: more than the run's 1 GB, no more than a 2 GB container holds
    pid = os.fork()
    if pid == 0:
        block = b"1" * (400 << 20)  # written, so really held
        os.write(ready_w, b"x")
        time.sleep(60)
        os._exit(0)
    children.append(pid)
ready, deadline = 0, time.time() + 9
os.set_blocking(ready_r, False)
while ready < 3 and time.time() < deadline:
    try:
        ready += len(os.read(ready_r, 3))
    except BlockingIOError:
        time.sleep(0.05)
time.sleep(0.5)  # a child the OOM killer chose gives its memory back before it can be waited for
alive = sum(1 for pid in children if os.waitpid(pid, os.WNOHANG) == (0, 0))
print("HELD %d MB" % (min(ready, alive) * 400))  # held at once: ready, and none killed since
def f(x):
    return 2 * x
'''


def all_processes_capped(sandbox) -> bool:
    """True if a cgroup caps the memory of all a run's processes together (else the cap is split per process)."""
    return any(slot.channel is not None and slot.channel.memory_capped for slot in sandbox.slots)


async def test_memory_is_capped_over_all_the_runs_processes(sandbox):
    """Three children of 400 MB never hold 1,200 MB at once under a 1 GB cap.

    With a cgroup the kernel kills a child: status `memory`. Without one (a
    non-root container) the cap is split, 256 MB and 4 processes each: a child
    fails its allocation (`memory`), or the process cap refuses a fork first
    (`error`, BlockingIOError) -- which of the two the judge hears first is a
    race between the child's report and the parent's, and both contain it.
    """
    limits = Limits(wall_seconds=12.0, cpu_seconds=10, memory_bytes=1 << 30)
    result = await run(sandbox, HOLD_MEMORY_IN_CHILDREN, tests=("assert f(1) == 2",), limits=limits)
    wins = [line for line in result.stdout.splitlines() if line == "HELD 1200 MB"]
    await assert_still_judges(sandbox)
    if sandbox.secure:
        fork_refused = result.status == "error" and "BlockingIOError" in str(result)
        assert result.status == "memory" or (fork_refused and not all_processes_capped(sandbox)), result
    expect_contained(sandbox, wins)


# ------------------------------------------------------------------ 5. signalling the worker

SIGNAL_THE_WORKER = r'''
import os, signal
MARKER = b"<sandbox worker>"
targets = {os.getppid()}
try:
    with open("/proc/1/cmdline", "rb") as handle:
        if MARKER in handle.read():
            targets.add(1)
except OSError:
    pass
for pid in targets:
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGQUIT):
        try:
            os.kill(pid, number)
        except OSError:
            pass
import time
time.sleep(0.2)
def f(x):
    return 2 * x
'''


async def test_signals_to_the_worker_change_nothing(sandbox):
    await assert_still_judges(sandbox)  # a worker is up: one an earlier test retired starts now, not below
    starts = [slot.starts for slot in sandbox.slots]
    result = await run(sandbox, SIGNAL_THE_WORKER, tests=("assert f(1) == 2",))
    restarted = [slot.starts for slot in sandbox.slots] != starts
    if not restarted:
        await assert_still_judges(sandbox)
        restarted = [slot.starts for slot in sandbox.slots] != starts
    wins = (["the worker was restarted"] if restarted else []) + (
        [f"the run read as {result.status}"] if not result.all_passed else []
    )
    expect_contained(sandbox, wins)


# ------------------------------------------------------------------ 6. the task's trusted code

REPLACE_THE_TASKS_HELPERS = r'''
import builtins
_compile = builtins.compile
def compile(source, filename, *rest, **options):  # where tests share its process: keep the task's setup out
    return _compile("pass" if filename == "<setup>" else source, filename, *rest, **options)
builtins.compile = compile
def encode(text):  # the task's helper, replaced by one that makes any decode right
    return text
def decode(text):
    return text
'''
TASK_SETUP = "def encode(text):\n    return text[::-1] + '!'\n"


async def test_a_program_cannot_replace_the_tasks_own_helpers(sandbox):
    """HumanEval/38 and /50: the hidden test encodes with the task's helper, which a wrong program redefines."""
    result = await sandbox.run(RunRequest(
        program=REPLACE_THE_TASKS_HELPERS, tests=("assert decode(encode('abc')) == 'abc'",),
        setup=TASK_SETUP, entry_points=("decode",)))  # fmt: skip
    assert result.status == "ok", result
    expect_contained(sandbox, forged_passes(result))
    await assert_still_judges(sandbox)


# ------------------------------------------------------------------ 7. model-written tests

FORGE_FROM_A_MODEL_WRITTEN_TEST = r'''
import json, os, struct, sys
frame = sys._getframe()
while frame is not None:  # the judge's (or the worker's) frames: its record function and nonce
    seen = frame.f_locals
    if "record" in seen and ("nonce" in seen or "request" in seen):
        print("WIN reached the function that records verdicts")
        for index in range(8):
            seen["record"]({"test": index, "passed": True, "detail": "", "memory": False})
        seen["record"]({"done": True})
    for name in ("channel_out", "channel_in", "result_fd"):
        if name in seen:
            print("WIN reached", name)
    frame = frame.f_back
reply = json.dumps({"records": [], "stdout": "", "stderr": "", "timed_out": False, "signal": 0,
                    "exit_code": 0, "nonce": "forged"}).encode()
for fd in range(3, 64):  # a whole reply frame to anything that may be the channel to the host
    try:
        os.write(fd, struct.pack(">I", len(reply)) + reply)
    except OSError:
        pass
'''


async def test_a_model_written_test_cannot_forge_a_verdict_or_reach_the_host(sandbox):
    """Untrusted tests run in a process of their own: no judge's frame, no channel, no other run's reply."""
    result = await sandbox.run(RunRequest(
        program="def f(x):\n    return x\n", tests=WRONG_TESTS,
        untrusted_tests=(FORGE_FROM_A_MODEL_WRITTEN_TEST + "assert True\n",)))  # fmt: skip
    wins = [outcome.test for outcome in result.tests[: len(WRONG_TESTS)] if outcome.passed]
    wins += [line for line in result.stdout.splitlines() if line.startswith("WIN")]
    expect_contained(sandbox, wins)
    for _ in range(3):  # the next runs (another session's) read their own replies
        await assert_still_judges(sandbox)


# ------------------------------------------------------------------ 8. a bounded trusted side

COLLIDING = (1 << 61) - 1  # ints that differ by a multiple of this hash alike

SEND_A_FORGED_REPLY = r'''
import fcntl, os, struct, time
def reply_fd():
    for fd in range(3, 64):
        try:
            if fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
                return fd
        except OSError:
            pass
def f(x):
    items = ",".join(str(1 + k * COLLIDING) for k in range(COUNT))
    body = ('["ok", {"s": [' + items + ']}]').encode()
    fd = reply_fd()
    if fd is not None:
        os.write(fd, struct.pack(">I", len(body)) + body)
    time.sleep(60)
'''


@pytest.mark.parametrize("count", [131000, 800000], ids=["under-the-cap", "15MB"])
async def test_a_reply_of_hash_colliding_items_cannot_stall_the_judge(sandbox, count):
    """Items that all hash alike cost the square of their number to put in a set, inside one C call.

    The judge refuses a frame with too many set or dict items before building
    any, and fills the rest one item at a time, where its alarm can stop it:
    either way the run ends at its deadline and the worker carries on.
    """
    naive = [1 + k * COLLIDING for k in range(16000)]
    started = time.monotonic()
    set(naive)  # the payload is what the check says it is (8,000 took 0.16 s on a fast core)
    assert time.monotonic() - started > 0.2
    limits = Limits(wall_seconds=3.0)
    await assert_still_judges(sandbox)  # a worker is up: one an earlier test retired starts now, not below
    starts = [slot.starts for slot in sandbox.slots]
    program = f"COLLIDING, COUNT = {COLLIDING}, {count}\n" + SEND_A_FORGED_REPLY
    started = time.monotonic()
    result = await run(sandbox, program, tests=("assert f(1) == {1}",), limits=limits)
    elapsed = time.monotonic() - started
    assert not result.all_passed and result.status in ("timeout", "crashed"), result
    assert elapsed < limits.wall_seconds + 3.0, f"the run took {elapsed:.1f}s"
    await assert_still_judges(sandbox)
    assert [slot.starts for slot in sandbox.slots] == starts  # no worker had to be killed from outside


async def test_a_test_stuck_in_one_c_call_ends_at_the_deadline(sandbox):
    """A trusted test that builds a set of colliding items itself: the judge's alarm cannot stop a C call.

    The supervisor's watchdog ends the judge shortly after the deadline (the
    unsandboxed control's worker kills its child at the deadline); the run
    reads as timed out and the slot judges the next runs as before.
    """
    program = f"def f():\n    return [1 + k * {COLLIDING} for k in range(60000)]\n"
    limits = Limits(wall_seconds=2.0)
    started = time.monotonic()
    result = await run(sandbox, program, tests=("assert len(set(f())) == 1",), limits=limits)
    elapsed = time.monotonic() - started
    assert result.status == "timeout" and not result.all_passed, result
    assert elapsed < limits.wall_seconds + 4.0, f"the run took {elapsed:.1f}s"
    await assert_still_judges(sandbox)


LONE_SURROGATES = r'''
def f(x):
    raise ValueError("bad \udc80 value")
def g():
    return "\ud800"
class Odd(Exception):
    pass
def h():
    raise Odd("\udfff")
raise_at_import = False
'''


async def test_lone_surrogates_in_messages_and_values_come_back_as_valid_text(sandbox):
    """A program's exception messages and values may hold lone surrogates; every text of the result is UTF-8."""
    tests = ("assert f(1) == 1", "assert g() == 'x'", "h()", "assert f('\\udcff') == 0")
    result = await run(sandbox, LONE_SURROGATES, tests=tests)
    assert result.status == "ok", result
    texts = [result.stdout, result.stderr] + [outcome.detail for outcome in result.tests]
    for text in texts:
        text.encode("utf-8")  # raises on a lone surrogate
    assert "bad \\udc80 value" in result.tests[0].detail
    at_import = await run(sandbox, "raise ValueError('\\udc80')\n")
    assert at_import.status == "error" and "\\udc80" in at_import.stderr
    at_import.stderr.encode("utf-8")
