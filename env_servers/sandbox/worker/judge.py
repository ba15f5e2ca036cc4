"""The judge of one run (split design): it forks the candidate, reads the request, runs the trusted tests, replies.

Forked by the supervisor before any request arrives, the judge forks the
candidate before it reads anything, so no process ever holds data of an
earlier run. It keeps the supervisor's deafness to catchable signals, so a
program that signals its parent cannot end the judging (the candidate gets
them back). The verdict is computed only here, where the candidate cannot
read or patch it. Where the sandbox allows it (--run-namespaces), the judge
is PID 1 of the run's own PID namespace and first gives the run IPC, network
and mount namespaces of its own, with fresh tmpfs mounts and /proc
(run_namespaces.py), so whatever the run makes there dies with it. Before
replying, the judge kills every process of the run and (with --pristine)
checks that the run left nothing behind; a run that did gets a reply marked
"retire".
"""

import json
import os
import random
import signal
import sys
import time
import _signal

from env_servers.sandbox.pristine import last_pid
from env_servers.sandbox.worker.assertions import run_tests
from env_servers.sandbox.worker.call_proxy import Caller, judge_namespace
from env_servers.sandbox.worker.candidate import candidate_main
from env_servers.sandbox.worker.cleanup import kill_everything_else, kill_the_rest_of_the_namespace
from env_servers.sandbox.worker.hardening import keep_only_kill
from env_servers.sandbox.worker.host_channel import read_exactly, receive_request_header, send
from env_servers.sandbox.worker.judge_link import Link
from env_servers.sandbox.worker.output import CapturedStream
from env_servers.sandbox.worker.run_errors import CandidateGone, RunTimeUp
from env_servers.sandbox.worker.run_namespaces import enter_run_namespaces
from env_servers.sandbox.worker.run_process import LIMIT_NAMES
from env_servers.sandbox.worker.state import STATE
from env_servers.sandbox.worker.tester import run_tests_in_tester, start_tester
from env_servers.sandbox.worker.texts import TRACEBACK_CHARS, printable

EXIT_REPLIED = 0  # the judge sent its reply and the run left nothing behind
EXIT_CHANNEL_CLOSED = 3  # the host closed the channel: the worker ends
EXIT_RETIRE = 4  # the judge sent its reply; the run left traces, so the worker must be replaced
ALARM_MARGIN = 0.25  # the judge's own alarm fires this long after the run's deadline


def on_alarm(signum, frame):
    raise RunTimeUp()


def judge(link, candidate, tester, request, record):
    """Send the program, run each test against it, `record` every verdict; return (timed_out, lost).

    The tests run in the tester, the judge relaying their calls, whatever their
    kind: a run's processes then do the same work whether it is a Step, a probe
    or a Score, so the program cannot tell them apart by watching them. Only a
    request with both kinds runs its trusted tests here first, so that no
    untrusted test shares a process with them.
    """
    timed_out, lost = False, ""
    try:
        setup = request.get("setup") or ""
        link.send(candidate, ["program", request["program"], [request["limits"][name] for name in LIMIT_NAMES], setup])
        report = link.receive(candidate)
        if len(report) != 4 or report[0] != "program" or report[1] not in ("ok", "error", "syntax_error", "memory"):
            raise CandidateGone("the program broke the judge protocol (no program report)")
        record({"program": report[1], "detail": printable(str(report[2])[:TRACEBACK_CHARS])})
        if report[1] == "ok":
            entry_points = request.get("entry_points") or ()
            trusted, untrusted = list(request["tests"]), list(request.get("untrusted_tests") or ())
            in_judge = trusted if untrusted else []
            if in_judge:
                namespace = judge_namespace(Caller(link, candidate), report[3], entry_points)
                run_tests(in_judge, namespace, setup, record)
            run_tests_in_tester(link, candidate, tester, report[3], untrusted or trusted, request, record, len(in_judge))
        record({"done": True})
    except RunTimeUp:
        _signal.setitimer(_signal.ITIMER_REAL, 0)
        timed_out = True
    except CandidateGone as gone:
        _signal.setitimer(_signal.ITIMER_REAL, 0)
        lost = str(gone)
    _signal.setitimer(_signal.ITIMER_REAL, 0)
    return timed_out, lost


def own_end(pid, grace=0.2):
    """The wait status of a candidate that ended by itself (its pipes close just before it is reapable)."""
    give_up = time.monotonic() + grace
    while True:
        ended, status = os.waitpid(pid, os.WNOHANG)
        if ended:
            return status
        if time.monotonic() >= give_up:
            return None
        time.sleep(0.002)


def end_run(candidate_pid, others, lost):
    """Kill the candidate, the tester and everything else of the run; the candidate's wait status if it had ended.

    Before the reply every process of the run is dead. Where the judge is
    PID 1 of the run's own PID namespace (--run-namespaces), it kills and
    reaps every other process there. Otherwise, when the pid counter shows
    no process made since the judge's own, killing those is enough; if it
    does, in the sandbox's own PID namespace (its init is the worker), every
    process of the namespace but its init and the judge is killed.
    Without one (the process backend) the judge kills only the run's own:
    every other process it could see is the host's.
    """
    status = own_end(candidate_pid) if lost else None
    for pid in [candidate_pid] + others:
        for target in (-pid, pid):
            try:
                os.kill(target, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
    if status is None:
        os.waitpid(candidate_pid, 0)  # blocks until it is gone, without spinning
    for pid in others:
        os.waitpid(pid, 0)
    if STATE.run_namespaces is not None:  # PID 1 of the run's namespace: kill(-1) and reap until none is left
        kill_everything_else()
    elif STATE.namespace_init and last_pid() != max([candidate_pid] + others):
        kill_the_rest_of_the_namespace()
    return status


def fork_candidate(work_dir, watchdog_w):
    """Fork the candidate before any request is read; (pid, program_w, reply_r, out_r, err_r): the judge's ends."""
    program_r, program_w = os.pipe()
    reply_r, reply_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    judge = os.getpid()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(watchdog_w)
            candidate_main(program_r, reply_w, out_w, err_w, work_dir, judge)
        finally:
            os._exit(70)
    for fd in (program_r, reply_w, out_w, err_w):
        os.close(fd)
    return pid, program_w, reply_r, out_r, err_r


def receive_the_request(channel_in):
    """The run's request; the judge exits if the host closed the channel."""
    try:
        header = receive_request_header(channel_in)
    except (ValueError, OSError):
        header = None
    if header is None:
        os._exit(EXIT_CHANNEL_CLOSED)
    body = read_exactly(channel_in, header[0])
    if body is None:
        os._exit(EXIT_CHANNEL_CLOSED)
    return json.loads(body)


def start_the_clock(wall_seconds, watchdog_w):
    """(started, deadline); tell the supervisor the deadline and set the judge's own alarm as a backstop."""
    started = time.monotonic()
    deadline = started + wall_seconds
    try:
        os.write(watchdog_w, b"%.6f" % deadline)
    except OSError:
        pass
    _signal.signal(int(signal.SIGALRM), on_alarm)  # a backstop for tests that loop in the judge itself
    _signal.setitimer(_signal.ITIMER_REAL, wall_seconds + ALARM_MARGIN)
    return started, deadline


def run_reply(link, records, status, timed_out, lost):
    """The reply's records, output and how the candidate ended (its wait status if it ended by itself)."""
    died_by = os.WTERMSIG(status) if status is not None and os.WIFSIGNALED(status) else 0
    exit_code = os.WEXITSTATUS(status) if status is not None and os.WIFEXITED(status) else None
    stderr = link.stderr.text()
    if lost:
        stderr += ("\n" if stderr and not stderr.endswith("\n") else "") + lost
    return {
        "records": records,
        "stdout": link.stdout.text(),
        "stderr": stderr,
        "timed_out": timed_out,
        "signal": died_by,
        "exit_code": exit_code if lost else 0,
    }


def judge_main(channel_in, channel_out, work_dir, watchdog_w):
    """The judge of one run (forked by the supervisor before any request): never returns.

    It tells the supervisor its deadline through `watchdog_w`.
    """
    if STATE.run_namespaces is not None:  # before any process of the run exists, before reading anything
        enter_run_namespaces()
    pid, program_w, reply_r, out_r, err_r = fork_candidate(work_dir, watchdog_w)
    # The tester right after the candidate, for every run, with untrusted tests or none (a Step, a
    # probe and a Score run have the same processes, so a program cannot tell which kind it is in);
    # back to back, so the judge copies its pages once after both forks rather than once after each.
    tester = start_tester(work_dir)
    if STATE.candidate_uid is not None:
        keep_only_kill()
    request = receive_the_request(channel_in)
    nonce = request["nonce"]
    limits = request["limits"]
    random.seed(0)  # tests that draw random inputs draw the same ones every run
    started, deadline = start_the_clock(float(limits["wall_seconds"]), watchdog_w)
    link = Link(deadline, int(limits["max_output_bytes"]))
    link.watch_output(out_r, err_r)
    candidate = link.add_peer("the program", program_w, reply_r)
    tester_peer = link.add_peer("the tests' process", tester[1], tester[2])
    sys.stdout, sys.stderr = CapturedStream(link.stdout), CapturedStream(link.stderr)
    records = []

    def record(message):
        message["nonce"] = nonce
        records.append(message)  # the judge is trusted: records travel as objects, not text lines

    timed_out, lost = judge(link, candidate, tester_peer, request, record)
    _signal.signal(int(signal.SIGALRM), _signal.SIG_IGN)
    status = end_run(pid, [tester[0]], lost)
    link.drain()
    link.close()
    reply = run_reply(link, records, status, timed_out, lost)
    reply.update(wall_seconds=time.monotonic() - started, nonce=nonce)
    # Processes are checked only where the run shares the worker's PID namespace; its own dies with the judge.
    last_own_pid = tester[0] if STATE.run_namespaces is None else None
    traces = STATE.baseline.traces(last_own_pid) if STATE.baseline is not None else []
    if traces:
        reply["retire"] = traces
    try:
        send(channel_out, reply)
    finally:
        os._exit(EXIT_RETIRE if traces else EXIT_REPLIED)
