"""Running the conformance kit, as a user would, against real server processes."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from concurrent.futures import ThreadPoolExecutor

from lats.processes import start_service

REPLICA_KEY = "conformance-shared-key"
# Checks that only servers without snapshots run (states named by replay).
WITHOUT_SNAPSHOTS_ONLY = [
    "test_replay_without_snapshots_matches_sessions",
    "test_replay_batch_results_keep_request_order",
    "test_replay_batch_limits_are_invalid_argument",
    "test_replay_after_the_end_is_failed_precondition",
    "test_replay_of_an_unknown_task_is_not_found",
    "test_replay_scores_like_the_session_that_played_it",
    "test_replays_answer_identically_on_a_second_replica",
]
# The check that only servers stating no answer keys run (all of ours state them).
STATES_ANSWER_KEYS = "test_keys_only_from_servers_that_state_them"
# The kit's NaN/Infinity checks, which only servers that take inline tasks run.
WITHOUT_INLINE_TASKS_ONLY = [f"test_non_finite_inline_task_is_invalid_argument[{case}]"
                             for case in ("infinity", "in-a-list", "in-a-struct", "nan")]


@contextlib.contextmanager
def two_replicas(name: str, args: list[str], **kwargs):
    """Two processes of `lats serve <args>` sharing one snapshot key; stopped on exit."""
    args = [*args, "--snapshot-key", REPLICA_KEY]
    first = start_service(name, args, **kwargs)
    try:
        second = start_service(f"{name}-2", args, **kwargs)
    except Exception:
        first.stop()
        raise
    try:
        yield first, second
    finally:
        codes = [second.stop(), first.stop()]
    assert codes == [0, 0], f"a replica did not stop cleanly: exit codes {codes}"


@contextlib.contextmanager
def services_together(name: str, args: list[str], count: int = 2, timeout: float = 120.0):
    """`count` processes of `lats serve ARGS`, started at once (for servers whose start
    is slow and shares nothing on disk); all stopped on exit, each cleanly.

    The starting threads stay alive until the processes are stopped: a service dies
    with the thread that started it (PR_SET_PDEATHSIG, lats.processes)."""
    pool = ThreadPoolExecutor(count)
    started, failures = [], []
    try:
        futures = [pool.submit(start_service, f"{name}-{i}", args, timeout=timeout)
                   for i in range(count)]
        for future in futures:
            try:
                started.append(future.result())
            except Exception as error:  # noqa: BLE001 - stop the others, then report it
                failures.append(error)
        if failures:
            raise failures[0]
        yield started
    finally:
        codes = [service.stop() for service in reversed(started)]
        pool.shutdown()
    assert codes == [0] * count, f"a process did not stop cleanly: exit codes {codes}"


def kit_command(address: str, report, *pytest_args: str, task_id: str = "",
                replica: str = "", timeout: float = 10.0) -> list[str]:
    return [sys.executable, "-m", "lats", "conformance", address,
            *(["--task-id", task_id] if task_id else []),
            *(["--replica", replica] if replica else []), "--timeout", str(timeout),
            f"--junitxml={report}", "-q", *pytest_args]


def kit_results(report) -> dict[str, str]:
    """test name -> passed / failed / skipped, from the kit's junit report."""
    results = {}
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed"
            elif child.tag == "skipped":
                outcome = "skipped"
        results[case.get("name")] = outcome
    return results


def run_kit(replicas, report, task_id: str, timeout: float = 10.0,
            process_timeout: float = 170.0) -> dict[str, str]:
    """Runs the whole kit against two replicas; asserts it passed; returns the results."""
    first, second = replicas
    run = subprocess.run(kit_command(first.address, report, task_id=task_id,
                                     replica=second.address, timeout=timeout),
                         capture_output=True, text=True, timeout=process_timeout)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    results = kit_results(report)
    assert len(results) >= 79, "the kit ran fewer checks than it has"
    for must_run in ("test_transition_equals_restore_step_snapshot",
                     "test_a_second_replica_answers_identically",
                     "test_batch_results_keep_request_order"):
        assert results[must_run] == "passed", must_run
    return results


def skipped(results: dict[str, str]) -> list[str]:
    return sorted(name for name, outcome in results.items() if outcome == "skipped")
