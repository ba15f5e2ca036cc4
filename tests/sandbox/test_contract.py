"""The host-side contract without a sandbox: result decoding, request checks, backend choice."""

from __future__ import annotations

import json
import signal

import pytest

from env_servers.sandbox import Limits, RunRequest, RunResult, SandboxUnavailable, TestOutcome, make_sandbox
from env_servers.sandbox.pool import validate
from env_servers.sandbox.results import build_result

NONCE = "n0nce"
REQUEST = RunRequest(program="def f():\n    return 1\n", tests=("assert f() == 1", "assert f() == 2"))


def reply(*records: dict, **fields) -> dict:
    lines = [json.dumps(record) for record in records]
    return {
        "records": lines,
        "stdout": "",
        "stderr": "",
        "timed_out": False,
        "signal": 0,
        "exit_code": 0,
    } | fields


def own(record: dict) -> dict:
    return record | {"nonce": NONCE}


FULL_RUN = (
    own({"program": "ok"}),
    own({"test": 0, "passed": True, "detail": ""}),
    own({"test": 1, "passed": False, "detail": "# output: 1"}),
    own({"done": True}),
)


def test_a_finished_run_is_ok_with_its_verdicts():
    result = build_result(REQUEST, reply(*FULL_RUN), NONCE)
    assert result.status == "ok"
    assert [(t.passed, t.detail) for t in result.tests] == [(True, ""), (False, "# output: 1")]


def test_records_without_the_nonce_are_ignored():
    forged = [{k: v for k, v in record.items() if k != "nonce"} for record in FULL_RUN]
    result = build_result(REQUEST, reply(*forged), NONCE)
    assert result.status == "crashed" and result.passed == 0


def test_records_with_another_runs_nonce_are_ignored():
    other = [record | {"nonce": "other"} for record in FULL_RUN]
    assert build_result(REQUEST, reply(*other), NONCE).passed == 0


def test_without_done_a_clean_exit_is_a_crash():
    result = build_result(REQUEST, reply(*FULL_RUN[:-1], exit_code=0), NONCE)
    assert result.status == "crashed" and not result.all_passed
    assert result.passed == 1  # verdicts that carried the nonce still stand


def test_cpu_limit_signal_is_a_timeout():
    result = build_result(
        REQUEST, reply(own({"program": "ok"}), signal=int(signal.SIGXCPU), exit_code=None), NONCE
    )
    assert result.status == "timeout"
    assert all(not t.passed and "time limit" in t.detail for t in result.tests)


def test_memory_error_in_a_test_marks_the_run():
    records = (
        own({"program": "ok"}),
        own({"test": 0, "passed": False, "detail": "MemoryError", "memory": True}),
    )
    result = build_result(REQUEST, reply(*records, *FULL_RUN[3:]), NONCE)
    assert result.status == "memory"


def test_program_error_keeps_the_traceback_in_stderr():
    records = (own({"program": "error", "detail": "Traceback ...\nKeyError: 1\n"}), own({"done": True}))
    result = build_result(REQUEST, reply(*records), NONCE)
    assert result.status == "error" and "KeyError: 1" in result.stderr
    assert all("raised" in t.detail for t in result.tests)


def test_garbage_records_are_skipped():
    result = build_result(
        REQUEST, reply(*FULL_RUN) | {"records": ["not json", "[1]"] + reply(*FULL_RUN)["records"]}, NONCE
    )
    assert result.status == "ok"


def test_all_passed_needs_status_ok():
    passing = [TestOutcome("assert True", True)]
    assert RunResult("ok", passing).all_passed
    assert not RunResult("crashed", passing).all_passed
    assert RunResult("crashed", passing).passed == 1


@pytest.mark.parametrize(
    "request_, message",
    [
        (RunRequest(program=b"x", tests=()), "program"),
        (RunRequest(program="x", tests=("assert 1", 2)), "tuple"),
        (RunRequest(program="x" * (9 << 20), tests=()), "limit"),
        (RunRequest(program="x", tests=(), limits=Limits(wall_seconds=0)), "wall_seconds"),
        (RunRequest(program="x", tests=(), limits=Limits(memory_bytes=-1)), "memory_bytes"),
    ],
)
def test_bad_requests_are_refused_with_what_to_fix(request_, message):
    with pytest.raises(ValueError, match=message):
        validate(request_)


def test_process_backend_needs_explicit_consent():
    with pytest.raises(SandboxUnavailable, match="allow_insecure=True"):
        make_sandbox("process")
    insecure = make_sandbox("process", allow_insecure=True)
    assert insecure.secure is False and insecure.name == "process"


def test_a_worker_design_is_handed_over_never_named():
    with pytest.raises(TypeError, match="WorkerDesign"):
        make_sandbox("process", allow_insecure=True, design="shared")


def test_auto_is_bubblewrap_and_unknown_names_are_refused():
    assert make_sandbox().name == "bwrap" and make_sandbox().secure
    with pytest.raises(ValueError, match="unknown sandbox 'chroot'"):
        make_sandbox("chroot")


async def test_a_cap_the_kernel_refuses_for_a_moment_is_set_once_the_memory_is_freed():
    """A retired worker's shared memory is freed just after it is gone: lowering the cap waits for that."""
    import errno

    from env_servers.sandbox.channel import CapsNotSet, until_memory_is_freed

    attempts = []

    def busy_twice():
        attempts.append(1)
        if len(attempts) < 3:
            raise OSError(errno.EBUSY, "Device or resource busy")

    await until_memory_is_freed(busy_twice)
    assert len(attempts) == 3

    def always_busy():
        raise OSError(errno.EBUSY, "Device or resource busy")

    with pytest.raises(CapsNotSet, match="could not be set"):
        await until_memory_is_freed(always_busy, seconds=0.1)
