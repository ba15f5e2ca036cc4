"""The shared design's child: one forked process runs the program, then the tests, streaming its own verdicts.

A program that inspects or patches its interpreter can forge them: this is
the control the hazard suites expect to fail.
"""

import json
import os
import sys

from env_servers.sandbox.worker.assertions import run_tests
from env_servers.sandbox.worker.output import flush_output
from env_servers.sandbox.worker.program import MODULE_NAME, load_program, program_namespace
from env_servers.sandbox.worker.run_process import close_all_but, redirect_streams, start_run_state
from env_servers.sandbox.worker.texts import describe


def become_child(request, work_dir, result_fd, out_fd, err_fd):
    """Turn this fork of the worker into the run's child: its own session, its pipes, its directory, its limits."""
    os.setsid()
    redirect_streams(out_fd, err_fd)
    close_all_but(result_fd)
    os.chdir(work_dir)
    os.umask(0o077)
    for stream in (sys.stdout, sys.stderr):  # pristine: the worker never writes to them
        stream.reconfigure(line_buffering=True)
    sys.argv = [MODULE_NAME]
    start_run_state(request["limits"])


def child_main(request, work_dir, result_fd, out_fd, err_fd):
    """Runs in the forked child: never returns. Records are JSON lines tagged with the run's nonce."""
    write, dumps, exit_now = os.write, json.dumps, os._exit  # bound before the program runs
    nonce = request.pop("nonce")

    def record(message):
        message["nonce"] = nonce  # the host ignores records without it
        data = (dumps(message) + "\n").encode()
        while data:
            data = data[write(result_fd, data) :]

    try:
        become_child(request, work_dir, result_fd, out_fd, err_fd)
    except BaseException as error:
        try:
            record({"setup_error": describe(error)})
        finally:
            exit_now(70)
    namespace = program_namespace()
    setup = request.get("setup") or ""
    failure = load_program(request["program"], setup, namespace)
    if failure is not None:
        record({"program": failure[0], "detail": failure[1]})
        record({"done": True})
        exit_now(0)
    record({"program": "ok"})
    tests = list(request["tests"]) + list(request.get("untrusted_tests") or ())  # one process: the control
    run_tests(tests, dict(namespace), setup, record)
    flush_output()
    record({"done": True})
    exit_now(0)
