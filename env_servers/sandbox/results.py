"""Turn a worker's reply (raw records of one run) into a `RunResult`.

The status is decided here, on the host. Only records carrying this run's nonce
count, and only a run whose child wrote its "done" record after the last test
can be "ok": an early exit, a signal or a lost
worker reads as "crashed" (or "timeout" / "memory" when that is what happened).
Every text of a result is valid UTF-8: a lone surrogate (a program can put one
in an exception message or its output) is escaped (backslashreplace).
"""

from __future__ import annotations

import json
import signal

from env_servers.sandbox.base import (
    STATUS_CRASHED,
    STATUS_ERROR,
    STATUS_MEMORY,
    STATUS_OK,
    STATUS_SYNTAX_ERROR,
    STATUS_TIMEOUT,
    RunRequest,
    RunResult,
    TestOutcome,
)

STDERR_CHARS = 8000
_NOT_RUN = {
    STATUS_SYNTAX_ERROR: "not run: the program has a syntax error",
    STATUS_ERROR: "not run: the program raised an exception",
    STATUS_TIMEOUT: "not run: the time limit was exceeded",
    STATUS_MEMORY: "not run: the memory limit was exceeded",
    STATUS_CRASHED: "not run: the program exited or crashed before the tests finished",
    STATUS_OK: "not run",
}


def printable(text: str) -> str:
    """`text` with lone surrogates escaped, so protobuf and JSON encoders take it."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _parse_records(lines: list, nonce: str) -> list[dict]:
    """The run's own records (objects from a split judge, or JSON text lines from a worker whose program writes them).

    Anything without this run's nonce (e.g. forged by the program) is dropped.
    """
    records = []
    for line in lines:
        try:
            record = line if isinstance(line, dict) else json.loads(line)
        except (TypeError, ValueError):
            continue
        if isinstance(record, dict) and record.get("nonce") == nonce:
            records.append(record)
    return records


def _decide_status(reply: dict, records: list[dict], memory_hit: bool) -> tuple[str, str]:
    program = next((r for r in records if "program" in r), {})
    finished = any(r.get("done") is True for r in records)
    killed_by = reply.get("signal") or 0
    if reply.get("oom_killed"):  # before the timeout: a run waiting on killed processes is out of memory
        return STATUS_MEMORY, "a process of the run was killed by the memory limit (all its processes together)"
    if reply.get("timed_out") or killed_by == signal.SIGXCPU:
        return STATUS_TIMEOUT, ""
    if program.get("program") == STATUS_MEMORY or memory_hit:
        return STATUS_MEMORY, str(program.get("detail", ""))
    if finished and program.get("program") in (STATUS_SYNTAX_ERROR, STATUS_ERROR):
        return program["program"], printable(str(program.get("detail", "")))
    if finished and program.get("program") == STATUS_OK:
        return STATUS_OK, ""
    if killed_by:
        return STATUS_CRASHED, f"killed by signal {killed_by}"
    return STATUS_CRASHED, f"exited with code {reply.get('exit_code')} before the tests finished"


def build_result(request: RunRequest, reply: dict, nonce: str) -> RunResult:
    """Combine the request's tests with the records the worker relayed."""
    records = _parse_records(reply.get("records") or [], nonce)
    tests = request.all_tests
    by_index: dict[int, dict] = {}
    for record in records:
        index = record.get("test")
        if isinstance(index, int) and 0 <= index < len(tests) and index not in by_index:
            by_index[index] = record
    memory_hit = any(r.get("memory") is True for r in by_index.values())
    status, note = _decide_status(reply, records, memory_hit)
    outcomes = []
    for index, test in enumerate(tests):
        record = by_index.get(index)
        if record is None:
            outcomes.append(TestOutcome(test=test, passed=False, detail=_NOT_RUN[status]))
        else:
            detail = printable(str(record.get("detail", "")))
            outcomes.append(TestOutcome(test=test, passed=record.get("passed") is True, detail=detail))
    stderr = str(reply.get("stderr", ""))
    if note:
        stderr = (stderr + ("\n" if stderr and not stderr.endswith("\n") else "") + note)[-STDERR_CHARS:]
    try:
        wall_seconds = float(reply.get("wall_seconds") or 0.0)
    except (TypeError, ValueError):
        wall_seconds = 0.0
    return RunResult(
        status=status,
        tests=outcomes,
        stdout=printable(str(reply.get("stdout", ""))),
        stderr=printable(stderr),
        wall_seconds=wall_seconds,
    )


def lost_result(request: RunRequest, status: str, reason: str, wall_seconds: float) -> RunResult:
    """The result of a run whose worker died or stopped answering."""
    return RunResult(
        status=status,
        tests=[TestOutcome(test=t, passed=False, detail=_NOT_RUN[status]) for t in request.all_tests],
        stderr=printable(reason),
        wall_seconds=wall_seconds,
    )
