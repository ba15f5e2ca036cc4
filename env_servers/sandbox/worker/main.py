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
namespaces of its own and stacks a second filter (run_namespaces.py). Untrusted tests (a
model's own) never run in the judge but in a tester (tester.py). The judge
replies to the host itself; when it ends without replying or overruns its
deadline the supervisor replies for it. Arguments: see startup.py.
"""

import builtins
import os
import sys

from env_servers.sandbox.plain_data import from_json, to_json
from env_servers.sandbox.worker.assertions import run_tests
from env_servers.sandbox.worker.call_proxy import Caller, judge_namespace, rebuilt_exception
from env_servers.sandbox.worker.candidate import describe_names, exception_reply, serve_call
from env_servers.sandbox.worker.hardening import harden
from env_servers.sandbox.worker.judge import end_run
from env_servers.sandbox.worker.host_channel import receive_request_header
from env_servers.sandbox.worker.output import Capture
from env_servers.sandbox.worker.program import compile_program, run_program
from env_servers.sandbox.worker.run_namespaces import SETUP_CALLS, RunNamespaces, check_run_namespaces
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
        receive_request_header, end_run, run_tests_in_tester  # noqa: B018  (defined; run in forks only)


def main():
    options = parse_arguments(sys.argv[1:], "split")
    channel_in, channel_out = take_the_channel()
    STATE.candidate_uid = options["candidate-uid"]
    STATE.namespace_init = os.getpid() == 1
    filtered = harden(options["seccomp"], SETUP_CALLS if options["run-namespaces"] else ())
    if options["run-namespaces"]:
        STATE.run_namespaces = RunNamespaces(options["wipe"])
        check_run_namespaces()
    settle(options, warm_up)
    announce_ready(channel_out, options, filtered)
    supervise(channel_in, channel_out, options["work"], options["wipe"])


if __name__ == "__main__":
    main()
