"""The candidate: the process that runs the program and answers the judge's calls to it (split design).

It is forked by the judge before the judge reads any request, switches to the
candidate's uid (when it has one), gets default signals back, runs the program
in its module and then serves calls: arguments come in as plain data, each
return value goes back as plain data, an exception by type and message, any
other value by its truth alone.
"""

import os
import sys
import types

from env_servers.sandbox.plain_data import _ENCODER, NotPlainData, _plain, from_json
from env_servers.sandbox.worker.hardening import (
    PR_SET_DUMPABLE,
    PRCTL,
    become_candidate_uid,
    die_with_parent,
    restore_default_signals,
    write_only_where_a_run_may,
)
from env_servers.sandbox.worker.host_channel import HEADER, read_exactly, write_all
from env_servers.sandbox.worker.output import flush_output
from env_servers.sandbox.worker.program import MODULE_NAME, load_program, program_namespace
from env_servers.sandbox.worker.run_process import (
    LIMIT_NAMES,
    close_all_but,
    enter_work_dir,
    process_budget,
    redirect_streams,
    start_run_state,
)
from env_servers.sandbox.worker.state import STATE
from env_servers.sandbox.worker.texts import describe, program_line, program_traceback

MAX_NAMES = 10000


def candidate_frame(fd):
    """One frame from the judge, decoded as plain data (None when the judge is gone)."""
    header = read_exactly(fd, HEADER.size)
    if header is None:
        return None
    body = read_exactly(fd, HEADER.unpack(header)[0])
    return None if body is None else from_json(body)


def reply_to_judge(fd, message):
    """Send a message already made of plain data (see plain_data._plain)."""
    body = _ENCODER.encode(message).encode()
    write_all(fd, HEADER.pack(len(body)) + body)


def describe_names(namespace):
    """[name, kind, payload] for each top-level name the tests may use (dunder names excluded)."""
    described = []
    for name, value in list(namespace.items())[:MAX_NAMES]:  # the judge takes no more either
        if not isinstance(name, str) or name.startswith("__"):
            continue
        try:
            if isinstance(value, types.ModuleType):
                described.append([name, "module", str(value.__name__)])
            elif callable(value):
                described.append([name, "callable", None])
            else:
                described.append([name, "value", _plain(value, 0)])
        except NotPlainData as error:
            described.append([name, "opaque", str(error)])
        except BaseException as error:
            described.append([name, "opaque", "an object the judge cannot read (%s)" % type(error).__name__])
    return described


def exception_reply(error):
    bases = []
    for cls in type(error).__mro__[:20]:
        try:
            bases.append(str(cls.__name__)[:100])
        except BaseException:
            bases.append("BaseException")
    return ["raised", bases[0], describe(error), bases, program_line(error)]


def serve_call(namespace, message):
    """Run one call of the judge's; the reply is plain data, an exception, or why it is neither."""
    try:
        _, name, args, pairs = message
        function = namespace[name]
        result = function(*args, **dict(pairs))
    except BaseException as error:
        return exception_reply(error)
    try:
        return ["ok", _plain(result, 0)]
    except NotPlainData as error:
        description = str(error)
    except BaseException as error:
        description = "a value the judge cannot read (%s)" % type(error).__name__
    try:
        truth = bool(result)  # as much as `assert f(x)` needs; the program could return True as well
    except BaseException:
        truth = None
    return ["opaque", description, truth]


def go_first_under_memory_pressure():
    """Under a memory cap shared with its judge, the kernel's OOM killer picks the candidate first."""
    try:
        adjust = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
        try:
            os.write(adjust, b"1000")
        finally:
            os.close(adjust)
    except OSError:
        pass


def become_candidate(program_r, reply_w, out_w, err_w, work_dir, judge):
    """Turn this fork of the judge into the run's candidate; the judge's ["program", ...] message, or None if it left."""
    if STATE.candidate_uid is not None:
        become_candidate_uid()
    die_with_parent(judge)  # after the uid switch, which clears it
    restore_default_signals()
    close_all_but(program_r, reply_w, out_w, err_w)
    message = candidate_frame(program_r)
    if message is None:
        return None
    limits = dict(zip(LIMIT_NAMES, message[2]))
    os.setpgid(0, 0)  # a process group of its own; no session: setsid is denied (hardening.py)
    redirect_streams(out_w, err_w)
    enter_work_dir(work_dir)
    sys.argv = [MODULE_NAME]
    PRCTL(PR_SET_DUMPABLE, 1, 0, 0, 0)  # its own memory is its own (and pristine)
    go_first_under_memory_pressure()
    if STATE.run_namespaces is not None:  # a sandbox's run: its /tmp and /dev are its own
        write_only_where_a_run_may()  # after its one write under /proc, above
    start_run_state(process_budget(limits, STATE.candidate_uid is not None))
    return message


def program_report(namespace, failure):
    """The candidate's first reply: how the program loaded and, if it did, the names the tests may use."""
    try:
        return ["program", "ok", "", describe_names(namespace)] if failure is None else ["program", *failure, []]
    except BaseException as error:
        return ["program", "error", program_traceback(error), []]


def serve_calls(program_r, reply_w, namespace):
    """Answer the judge's calls until it closes the pipe (or anything breaks)."""
    try:
        while True:
            message = candidate_frame(program_r)
            if message is None:
                break
            reply = serve_call(namespace, message)
            flush_output()
            reply_to_judge(reply_w, reply)
    except BaseException:
        pass


def candidate_main(program_r, reply_w, out_w, err_w, work_dir, judge):
    """The candidate process (forked by `judge` before it read any request): never returns."""
    exit_now = os._exit  # bound before the program runs: it may replace os._exit
    try:
        message = become_candidate(program_r, reply_w, out_w, err_w, work_dir, judge)
    except BaseException:
        exit_now(70)
    if message is None:
        exit_now(0)
    _, source, _, setup = message
    namespace = program_namespace()
    report = program_report(namespace, load_program(source, setup, namespace))
    flush_output()
    try:
        reply_to_judge(reply_w, report)
    except BaseException:
        exit_now(0)
    serve_calls(program_r, reply_w, namespace)
    exit_now(0)
