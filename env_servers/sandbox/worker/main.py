"""The sandbox's worker, split design (every backend's): started once per slot, it serves runs one at a time.

The worker is a supervisor that never reads a request (supervisor.py): for
every run it forks a judge from its pristine state, and the judge forks the
candidate before it reads anything (judge.py), so no process ever holds data
of an earlier run. The judge reads the request from the channel, sends the
program to the candidate (candidate.py), and runs the trusted tests itself;
each test reaches the program through a call proxy (call_proxy.py), arguments
going to the candidate and the return value coming back as plain data
(anything else fails that test). The verdict is computed only in the judge,
which the candidate cannot read or patch: the supervisor is non-dumpable (its
forks inherit that), ignores every catchable signal, and with --seccomp loads
a filter, inherited by judge and candidate (hardening.py). With
--run-namespaces each judge first gives its run IPC, network and mount
namespaces of its own and stacks a second filter (run_namespaces.py; with
--own-user-namespace the worker first makes the user namespace to make them in). Untrusted tests (a
model's own) never run in the judge but in a tester (tester.py). The judge
replies to the host itself; when it ends without replying or overruns its
deadline the supervisor replies for it. Arguments: see startup.py.
"""

import builtins
import os
import sys
import time

from env_servers.sandbox.plain_data import from_json, to_json
from env_servers.sandbox.worker.assertions import run_tests
from env_servers.sandbox.worker.call_proxy import Caller, judge_namespace, rebuilt_exception
from env_servers.sandbox.worker.candidate import (
    candidate_frame,
    describe_names,
    exception_reply,
    reply_to_judge,
    serve_call,
    serve_calls,
)
from env_servers.sandbox.worker.hardening import harden
from env_servers.sandbox.worker.judge import end_run, run_reply
from env_servers.sandbox.worker.host_channel import read_exactly, receive_request_header, send, write_all
from env_servers.sandbox.worker.judge_link import Link
from env_servers.sandbox.worker.output import Capture, CapturedStream
from env_servers.sandbox.worker.program import compile_program, run_program
from env_servers.sandbox.worker.run_namespaces import (
    SETUP_CALLS,
    RunNamespaces,
    become_init_of_a_pid_namespace_of_the_workers_own,
    enter_a_user_namespace_of_the_workers_own,
    check_run_namespaces,
)
from env_servers.sandbox.worker.run_process import LIMIT_NAMES, process_budget
from env_servers.sandbox.worker.startup import announce_ready, parse_arguments, settle, take_the_channel
from env_servers.sandbox.worker.state import STATE
from env_servers.sandbox.worker.supervisor import supervise
from env_servers.sandbox.worker.tester import run_tests_in_tester
from env_servers.sandbox.worker.texts import printable

def warm_up():
    """Run the judge's, tester's and candidate's common paths in this process, on no request's data.

    What they create lazily (codec state, compiler and ast state, the
    specialised bytecode of the functions they run) then exists in the
    supervisor already, so each run's forks neither build it again nor write
    to the pages it lives on. Standard streams become line-buffered here, for
    the candidate's output.
    """
    for stream in (sys.stdout, sys.stderr):  # fds 1 and 2: the candidate's pipes once it runs
        stream.reconfigure(line_buffering=True)
    message = ["call", "f", [1, 2.5, "x", b"y", (1,), {1: [2]}, {3}, frozenset(), None, True], [["k", 1j]]]
    program = "def f(x):\n    return 2 * x\n"
    setup = "from typing import List\n"
    for _ in range(20):  # past the interpreter's warm-up count, so the bytecode is specialised here
        from_json(to_json(message))
        from_json(b'["ok", [1, {"t": [2]}]]')
        namespace = {"__builtins__": builtins, "__name__": "__main__"}
        code, _ = compile_program(program)
        run_program(code, setup, namespace)
        names = describe_names(namespace)
        tests_namespace = dict(judge_namespace(Caller(None, None), names, ("f",)), f=lambda x: 2 * x)
        run_tests(["assert f(1) == 2", "x = [i for i in range(3)]\nassert x"], tests_namespace, setup, lambda r: r)
        serve_call(namespace, ["call", "f", [2], []])
        exception_reply(ValueError("warm"))
        rebuilt_exception("ValueError", "ValueError: warm", ["ValueError", "Exception"])
        Capture(10).feed(b"warm")
        printable("warm")
        end_run  # noqa: B018  (defined; run in forks only)
    warm_up_pipes()


def warm_up_pipes():
    """Run the judge's, tester's and candidate's pipe paths in this process, over pipes of its own.

    The frames, relays and verdicts of a run (judge_link.Link, the call
    proxy's calls, the judge's relay of the tester, the candidate's serving
    loop, the host's request and reply) on made-up messages, as warm_up does
    for the rest: their bytecode is then specialised here, so each run's
    forks run it without first writing to the pages it lives on.
    """
    request = {"limits": dict.fromkeys(LIMIT_NAMES, 1), "setup": "", "entry_points": []}
    for _ in range(20):
        fds = []

        def pipe():
            ends = os.pipe()
            fds.extend(ends)
            return ends

        try:
            to_candidate_r, to_candidate_w = pipe()
            from_candidate_r, from_candidate_w = pipe()
            to_tester_r, to_tester_w = pipe()
            from_tester_r, from_tester_w = pipe()
            out_r, out_w = pipe()
            err_r, err_w = pipe()
            channel_r, channel_w = pipe()
            # the tester's side: a call through the judge, a verdict, the end
            link = Link(time.monotonic() + 60, 100)
            judge = link.add_peer("the judge", from_tester_w, to_tester_r)
            reply_to_judge(to_tester_w, ["ok", 2])
            Caller(link, judge).call("f", (1,), {})
            link.send(judge, ["verdict", 0, True, "", False])
            link.send(judge, ["done", "", ""])
            # the judge's side: the request, the relay of those frames to a candidate, the reply
            write_all(channel_w, b"\0\0\0\2\0{}")
            read_exactly(channel_r, receive_request_header(channel_r)[0])
            link = Link(time.monotonic() + 60, 100)
            link.watch_output(out_r, err_r)
            candidate = link.add_peer("the program", to_candidate_w, from_candidate_r)
            tester = link.add_peer("the tests' process", to_tester_w, from_tester_r)
            CapturedStream(link.stdout).write("warm")
            os.write(out_w, b"warm")
            reply_to_judge(from_candidate_w, ["ok", 2])
            records = []
            run_tests_in_tester(link, candidate, tester, [["f", "callable", None]], ["assert f(1) == 2"], request,
                                records.append, 0)  # fmt: skip
            link.drain()
            send(channel_w, run_reply(link, records, None, False, ""))
            read_exactly(channel_r, int.from_bytes(read_exactly(channel_r, 4), "big"))
            # the candidate's side: the relayed call, served until the judge closes the pipe
            candidate_frame(to_tester_r)  # the frames the judge sent the tester
            candidate_frame(to_tester_r)
            os.close(to_candidate_w)
            fds.remove(to_candidate_w)
            serve_calls(to_candidate_r, from_candidate_w, {"f": lambda x: 2 * x})
            process_budget(request["limits"], True)
        finally:
            for fd in fds:
                try:
                    os.close(fd)
                except OSError:
                    pass


def main():
    options = parse_arguments(sys.argv[1:], "split")
    channel_in, channel_out = take_the_channel()
    STATE.candidate_uid = options["candidate-uid"]
    if options["own-user-namespace"]:  # before the filter, which denies every user namespace
        enter_a_user_namespace_of_the_workers_own()
    filtered = harden(options["seccomp"], SETUP_CALLS if options["run-namespaces"] else ())
    if options["run-namespaces"]:
        become_init_of_a_pid_namespace_of_the_workers_own()
    STATE.namespace_init = os.getpid() == 1
    if options["run-namespaces"]:
        STATE.run_namespaces = RunNamespaces(options["wipe"])
        check_run_namespaces()
    settle(options, warm_up)
    announce_ready(channel_out, options, filtered)
    supervise(channel_in, channel_out, options["work"], options["wipe"])


if __name__ == "__main__":
    main()
