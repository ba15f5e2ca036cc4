"""A program must not tell which kind of run it is in: a Step, an answer-key probe or Score.

A program that behaved right only when it could tell it was watched would get
the right programs' answer key and Step reward, so the search would merge
right programs into it, and it would fail Score. Every kind of run must look
the same from inside. The program here reports everything it can see that
does not change from run to run by itself: its resource limits, the processes
it can see (pids relative to its own, their parents, uids and command lines),
its environment, credentials, files, open descriptors, signal dispositions and
its own status (capabilities, seccomp, signals), and, while a test calls it,
each process's limits and signal handlers (which process runs the tests
shows there). Whether a process is running or asleep at that instant is a
race, the same for every kind, so it is not compared: timing channels are
out of this check's reach. (Its own pid told how many runs its worker had
served, whatever their kinds: test_worker_age_hazards.py covers it.) The code runner's own
run requests for the three kinds (CodeRunnerDomain.run_request) must give the
same report on every backend; runs under different limits must not, so the
check can fail.
"""

from __future__ import annotations

import json

import pytest

from env_servers.coderunner.config import CodeRunnerConfig
from env_servers.coderunner.domain import CodeRunnerDomain
from env_servers.sandbox import Limits, RunRequest

pytestmark = pytest.mark.asyncio(loop_scope="module")

PURPOSES = ("step", "probe", "hidden")

LOOK_AROUND = r'''
import hashlib, json, os, resource, signal, sys

def _read(path):
    try:
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8", "replace")
    except OSError as error:
        return type(error).__name__

def _digest(text):
    return hashlib.sha256(text.encode()).hexdigest()[:16]

def _status(pid):
    keep = ("Uid", "Gid", "Groups", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb",
            "NoNewPrivs", "Seccomp", "SigBlk", "SigIgn", "SigCgt", "Threads")
    lines = _read(f"/proc/{pid}/status").splitlines()
    return [line for line in lines if line.split(":")[0] in keep]

def _listing(path):
    try:
        return sorted(os.listdir(path))
    except OSError as error:
        return type(error).__name__

def _relative(pid, me):
    return "init" if pid == 1 else pid - me if pid else pid

def look_around():
    me = os.getpid()
    processes = []
    for name in _listing("/proc"):
        if name.isdigit():
            pid = int(name)
            stat = _read(f"/proc/{pid}/stat").rsplit(")", 1)[-1].split()
            parent = _relative(int(stat[1]), me) if len(stat) > 1 and stat[1].isdigit() else None
            processes.append([_relative(pid, me), parent, _digest(_read(f"/proc/{pid}/cmdline")),
                              _status(pid), _digest(_read(f"/proc/{pid}/limits"))])
    processes.sort(key=repr)
    fds = []
    for fd in _listing("/proc/self/fd"):
        try:
            fds.append([fd, os.readlink(f"/proc/self/fd/{fd}").split(":")[0]])
        except OSError as error:
            fds.append([fd, type(error).__name__])
    umask = os.umask(0o077)
    os.umask(umask)
    report = {
        "limits": {name: resource.getrlimit(getattr(resource, name))
                   for name in sorted(dir(resource)) if name.startswith("RLIMIT_")},
        "processes": processes,
        "environment": sorted(os.environ.items()),
        "ids": [os.getuid(), os.geteuid(), os.getgid(), os.getegid(), sorted(os.getgroups())],
        "cwd": [os.getcwd(), _listing(".")],
        "files": {path: _listing(path) for path in ("/tmp", "/dev/shm", "/dev/mqueue", "/")},
        "fds": fds,
        "signals": [str(signal.getsignal(s)) for s in sorted(signal.valid_signals())
                    if s not in (signal.SIGKILL, signal.SIGSTOP)],
        "argv": sys.argv, "path": sys.path, "modules": sorted(sys.modules),
        "umask": umask, "affinity": sorted(os.sched_getaffinity(0)),
        "priority": os.getpriority(os.PRIO_PROCESS, 0),
    }
    print("REPORT " + json.dumps(report, sort_keys=True, default=repr))
'''


@pytest.fixture
def sandbox(hazard_sandbox):
    """The secure backends. The unsandboxed control is left out: it shares the host's
    processes and files (its reports differ from run to run whatever their kind, and
    can outgrow the output limit), and these programs would signal the host's."""
    if not hazard_sandbox.secure:
        pytest.skip("the unsandboxed control shares the host's processes and files")
    return hazard_sandbox


def report_of(result) -> dict:
    lines = [line for line in result.stdout.splitlines() if line.startswith("REPORT ")]
    assert result.status == "ok" and len(lines) == 1, (result.status, result.stdout[-500:],
                                                       result.stderr[-500:])
    return json.loads(lines[0][len("REPORT "):])


def differences(reports: dict[str, dict]) -> dict[str, list[str]]:
    """Per kind, the parts of its report that differ from the first kind's."""
    first, *others = reports
    return {kind: [part for part in reports[first]
                   if reports[kind].get(part) != reports[first][part]] for kind in others}


async def test_every_kind_of_run_looks_the_same_from_inside(sandbox):
    domain = CodeRunnerDomain(CodeRunnerConfig(), sandbox=sandbox)
    reports = {}
    for purpose in PURPOSES:
        request = domain.run_request(LOOK_AROUND, ("look_around()",), purpose, "look_around")
        reports[purpose] = report_of(await sandbox.run(request))
    assert differences(reports) == {kind: [] for kind in PURPOSES[1:]}, {
        kind: {part: report[part] for part in parts} for kind, parts in
        [("step", ["processes"]), *differences(reports).items()] for report in [reports[kind]]}


async def test_the_look_can_tell_runs_apart_when_they_differ(sandbox):
    """Different limits (as Step, probe and Score once had: 5, 3 and 10 s) show in
    the report, so the check above can fail."""
    reports = {}
    for seconds in (5, 3, 10):
        request = RunRequest(program=LOOK_AROUND, tests=(), untrusted_tests=("look_around()",),
                             limits=Limits(wall_seconds=seconds, cpu_seconds=seconds))
        reports[seconds] = report_of(await sandbox.run(request))
    assert all("limits" in parts for parts in differences(reports).values())


@pytest.mark.asyncio(loop_scope="module")
async def test_the_code_runner_runs_every_kind_under_one_limit():
    domain = CodeRunnerDomain(CodeRunnerConfig(sandbox="process", allow_insecure_sandbox=True))
    requests = [domain.run_request("x = 1", ("assert x",), purpose) for purpose in PURPOSES]
    assert len({request.limits for request in requests}) == 1
    assert requests[0].limits == Limits(wall_seconds=10.0, cpu_seconds=10), "Score's, as before"


# Hidden tests now run in the tester, under the candidate's uid where it has one: the
# program can see and signal that process. It must still never read the tests nor
# turn a failing verdict into a pass.
REACH_FOR_THE_TESTER = r'''
import os, signal

def f(x):
    me, seen = os.getpid(), []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in (me, 1):
            continue
        for what in ("mem", "environ", "fd/3", "fd/4"):
            try:
                with open(f"/proc/{name}/{what}", "rb") as handle:
                    seen.append(handle.read(4096))
                print("READ", name, what)
            except OSError:
                pass
        try:
            os.kill(int(name), signal.SIGKILL)
            print("KILLED", name)
        except OSError:
            pass
    return 3
'''


async def test_a_program_cannot_read_or_fool_the_process_running_its_hidden_tests(sandbox):
    request = RunRequest(program=REACH_FOR_THE_TESTER, tests=("assert f(1) == 2", "assert True"),
                         limits=Limits(wall_seconds=5, cpu_seconds=5))
    result = await sandbox.run(request)
    reads = [line for line in result.stdout.splitlines() if line.startswith("READ")]
    assert reads == [], f"{sandbox.name} let the program read another process: {reads}"
    assert not result.tests[0].passed, result
    await_good = await sandbox.run(RunRequest(program="def f(x):\n    return 2 * x\n",
                                              tests=("assert f(1) == 2", "assert f(2) == 5")))
    assert [t.passed for t in await_good.tests] == [True, False], await_good


# Found attacking the sandbox: the program shares a PID namespace and a uid with the tester, so it
# read the tester's counters in /proc (its page faults at the first call differ by how much test
# code it parsed: Score's hidden tests 465-483 against a Step's or a probe's 419-438, never
# overlapping, on bwrap and docker), and its judge's. Non-dumpability guards their memory, not
# /proc/PID/stat; the run's /proc (hidepid=invisible) now shows a program only what it may trace.

READ_OTHER_COUNTERS = r'''
import os

def f(x):
    me = os.getpid()
    listed = {int(name) for name in os.listdir("/proc") if name.isdigit()}
    for pid in sorted(listed | set(range(1, 9))):  # listed, or guessed: the run's pids are small
        if pid != me:
            name = str(pid)
            try:
                with open(f"/proc/{name}/stat") as handle:
                    print("COUNTERS", name, handle.read().rsplit(")", 1)[1].split()[7])
            except OSError:
                pass
    return 2 * x
'''


async def test_a_program_reads_no_counter_of_another_process_of_its_run(sandbox):
    result = await sandbox.run(RunRequest(program=READ_OTHER_COUNTERS, tests=("assert f(1) == 2",)))
    assert result.status == "ok" and result.all_passed, result
    read = [line for line in result.stdout.splitlines() if line.startswith("COUNTERS")]
    assert read == [], f"{sandbox.name}: the program read {read}"


SEE_OWN_CHILD = r'''
import os

def f(x):
    child = os.fork()
    if child == 0:
        os.read(os.open("/dev/null", os.O_RDONLY), 1)
        os._exit(0)
    with open(f"/proc/{child}/stat") as handle:
        seen = handle.read().split()[0] == str(child)
    with open("/proc/self/status") as handle:
        mine = any(line.startswith("Pid:") for line in handle)
    os.waitpid(child, 0)
    return 2 * x if seen and mine else -1
'''


async def test_a_program_still_sees_itself_and_its_own_children_in_proc(sandbox):
    result = await sandbox.run(RunRequest(program=SEE_OWN_CHILD, tests=("assert f(1) == 2",)))
    assert result.status == "ok" and result.all_passed, result
