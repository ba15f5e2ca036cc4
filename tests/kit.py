"""Running the conformance kit, as a user would, against real server processes."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from concurrent.futures import ThreadPoolExecutor

from lats_runtime.processes import start_service

REPLICA_KEY = "conformance-shared-key"
# The checks of blobs, which a server whose snapshots are replays skips.
BLOB_ONLY = ["test_damaged_blobs_are_invalid_argument",
             "test_score_of_a_damaged_blob_is_invalid_argument"]
# The checks of replay snapshots, which a server whose snapshots are blobs skips.
REPLAY_ONLY = ["test_a_replay_names_the_reset_and_every_action_since",
               "test_a_replay_past_its_episodes_end_is_invalid_argument",
               "test_a_replay_with_an_empty_action_is_invalid_argument",
               "test_a_replay_of_an_unknown_task_is_not_found"]
# The check that only servers stating no answer keys run (all of ours state them).
STATES_ANSWER_KEYS = "test_keys_only_from_servers_that_state_them[answer_key]"
# The check that only servers stating answer keys run.
STATES_NO_ANSWER_KEYS = "test_keys_are_the_same_for_the_same_state_and_action[answer_key]"
# The same two checks of state keys (the multi-step domains state them).
STATES_STATE_KEYS = "test_keys_only_from_servers_that_state_them[state_key]"
STATES_NO_STATE_KEYS = "test_keys_are_the_same_for_the_same_state_and_action[state_key]"
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
    with the thread that started it (PR_SET_PDEATHSIG, lats_runtime.processes)."""
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
                replica: str = "", timeout: float = 10.0, python: str = "") -> list[str]:
    return [python or sys.executable, "-m", "lats", "conformance", address,
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
    assert len(results) >= 60, "the kit ran fewer checks than it has"
    for must_run in ("test_a_snapshot_reproduces_later_steps_exactly",
                     "test_a_second_replica_answers_identically",
                     "test_replicas_start_tasks_alike",
                     "test_a_second_replica_scores_alike",
                     "test_batch_results_keep_request_order",
                     "test_parallel_episodes_stay_independent"):
        assert results[must_run] == "passed", must_run
    return results


def skipped(results: dict[str, str]) -> list[str]:
    return sorted(name for name, outcome in results.items() if outcome == "skipped")
