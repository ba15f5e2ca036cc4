"""The tester: the process a run's tests run in, and the judge's side of it.

Every run has one, and its tests run there whatever their kind (a model's own
asserts in a Step or a probe, the hidden tests in Score), so the run looks
the same from inside; a request with both kinds runs its trusted tests in
the judge first. It is forked by the judge before the judge reads the request, keeps only its
two pipes to the judge (no channel to the host, none to the candidate), runs
under the candidate's uid where it has one, and stays non-dumpable. Its calls
go to the judge, which relays them to the program; its verdicts go back as
plain data. Whatever its tests do (they may patch this process or forge their
own verdicts), they reach no other run and no verdict but their own.
"""

import os
import sys
import time

from env_servers.sandbox.plain_data import NotPlainData
from env_servers.sandbox.worker.assertions import run_tests
from env_servers.sandbox.worker.call_proxy import Caller, judge_namespace
from env_servers.sandbox.worker.candidate import candidate_frame
from env_servers.sandbox.worker.hardening import become_candidate_uid, die_with_parent, write_only_where_a_run_may
from env_servers.sandbox.worker.judge_link import Link
from env_servers.sandbox.worker.output import CapturedStream
from env_servers.sandbox.worker.run_errors import TesterGone
from env_servers.sandbox.worker.run_process import (
    LIMIT_NAMES,
    close_all_but,
    enter_work_dir,
    process_budget,
    start_run_state,
)
from env_servers.sandbox.worker.state import STATE
from env_servers.sandbox.worker.texts import DETAIL_CHARS, printable


def become_tester(from_judge, to_judge, work_dir, judge):
    """Turn this fork of the judge into the tester; the judge's ["tests", ...] message, or None if it left."""
    if STATE.candidate_uid is not None:
        become_candidate_uid()
    die_with_parent(judge)  # after the uid switch, which clears it
    os.setpgid(0, 0)  # a process group of its own; no session: setsid is denied (hardening.py)
    close_all_but(from_judge, to_judge)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    try:
        enter_work_dir(work_dir)  # made by whichever of candidate and tester comes first, in a run's fresh /tmp
    except OSError:
        os.umask(0o077)
    if STATE.run_namespaces is not None:  # a sandbox's run: its /tmp and /dev are its own
        write_only_where_a_run_may()
    return candidate_frame(from_judge)


def tester_main(from_judge, to_judge, work_dir, judge):
    """The tester process (forked by `judge` before it read the request): never returns."""
    exit_now = os._exit  # bound before any test runs: a test may replace os._exit
    try:
        message = become_tester(from_judge, to_judge, work_dir, judge)
        if message is None:
            exit_now(0)
        _, names, tests, setup, entry_points, values = message
        limits = process_budget(dict(zip(LIMIT_NAMES, values)), STATE.candidate_uid is not None)
        start_run_state(limits)
        link = Link(time.monotonic() + float(limits["wall_seconds"]), int(limits["max_output_bytes"]))
        judge = link.add_peer("the judge", to_judge, from_judge)
        sys.stdout, sys.stderr = CapturedStream(link.stdout), CapturedStream(link.stderr)

        def record(verdict):
            link.send(judge, ["verdict", verdict["test"], verdict["passed"], verdict["detail"], verdict["memory"]])

        run_tests(tests, judge_namespace(Caller(link, judge), names, tuple(entry_points)), setup, record)
        link.send(judge, ["done", link.stdout.text(), link.stderr.text()])
    except BaseException:
        pass
    exit_now(0)


def start_tester(work_dir):
    """Fork the tester; (pid, the judge's write end, the judge's read end)."""
    to_tester_r, to_tester_w = os.pipe()
    to_judge_r, to_judge_w = os.pipe()
    judge = os.getpid()
    pid = os.fork()
    if pid == 0:
        try:
            tester_main(to_tester_r, to_judge_w, work_dir, judge)
        finally:
            os._exit(70)
    os.close(to_tester_r)
    os.close(to_judge_w)
    return pid, to_tester_w, to_judge_r


def run_tests_in_tester(link, candidate, tester, names, tests, request, record, first_index):
    """Have the tester run `tests`, relaying its calls to the candidate; record its verdicts.

    The judge decodes only the tester's own messages (bounded); the program's
    replies reach the tester as they came. A tester that ends or breaks the
    protocol fails the tests it had not reported; the run goes on.
    """
    reported = set()
    stdout = stderr = ""
    try:
        limits = [request["limits"][name] for name in LIMIT_NAMES]
        link.send(tester, ["tests", names, tests, request.get("setup") or "", request.get("entry_points") or [], limits])
        while True:
            message = link.receive(tester)
            kind = message[0]
            if kind == "call" and len(message) == 4:
                link.send(candidate, message)
                link.send_frame(tester, link.receive_frame(candidate))
            elif kind == "verdict" and len(message) == 5:
                _, index, passed, detail, memory = message
                if type(index) is not int or not 0 <= index < len(tests) or index in reported:
                    raise TesterGone("the tests' process broke the judge protocol (a verdict out of place)")
                reported.add(index)
                record({"test": first_index + index, "passed": passed is True,
                        "detail": printable(str(detail)[: DETAIL_CHARS + 3]), "memory": memory is True})  # fmt: skip
            elif kind == "done" and len(message) == 3:
                stdout, stderr = printable(str(message[1])), printable(str(message[2]))
                break
            else:
                raise TesterGone("the tests' process broke the judge protocol (an unexpected message)")
    except (TesterGone, NotPlainData) as gone:
        why = "not run: %s" % (gone if isinstance(gone, TesterGone) else "the tests' process broke the judge protocol")
        for index in range(len(tests)):
            if index not in reported:
                record({"test": first_index + index, "passed": False, "detail": why, "memory": False})
    link.stdout.feed(stdout.encode("utf-8"))
    link.stderr.feed(stderr.encode("utf-8"))
