"""Session lifecycle: close, unknown ids, concurrency, expiry and capacity."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
from lats_pb import environment_pb2

from lats.conformance.helpers import Outcome, expect_status

PARALLEL_SESSIONS = 50
MAX_TESTABLE_TTL_SECONDS = 5
MAX_TESTABLE_SESSIONS = 256


def test_closed_session_is_not_found(sessions, task_id, describe):
    session = sessions.reset(task_id).session_id
    sessions.close(session)
    expect_status(grpc.StatusCode.NOT_FOUND, sessions.step, session, "anything")
    expect_status(grpc.StatusCode.NOT_FOUND, sessions.close, session)
    if describe.capabilities.snapshot:
        expect_status(grpc.StatusCode.NOT_FOUND, sessions.snapshot, session)


def test_unknown_session_close_is_not_found(stub, rpc_timeout):
    expect_status(grpc.StatusCode.NOT_FOUND, stub.Close,
                  environment_pb2.CloseRequest(session_id="conformance-no-such-session"),
                  timeout=rpc_timeout)


def _first_tasks(stub, rpc_timeout, task_id, count=5):
    listed = stub.ListTasks(environment_pb2.ListTasksRequest(page_size=count), timeout=rpc_timeout)
    return list(dict.fromkeys([task_id, *listed.task_ids]))[:count]


def _episode(sessions, task, first, second, snapshot: bool):
    """Reset, step, (snapshot, close, restore,) step: what a search does, recorded."""
    reset = sessions.reset(task)
    record = [reset.observation, Outcome.of(sessions.step(reset.session_id, first))]
    session = reset.session_id
    if snapshot:
        blob = sessions.snapshot(session)
        sessions.close(session)
        restored = sessions.restore(blob)
        session = restored.session_id
        record.append(restored.observation)
    record.extend(sessions.play(session, [second]))
    sessions.close(session)
    return record


def test_parallel_sessions_stay_independent(sessions, stub, rpc_timeout, task_id,
                                            probe_actions, describe, limits):
    count = min(PARALLEL_SESSIONS, max(1, limits.max_sessions - 8))
    tasks = _first_tasks(stub, rpc_timeout, task_id)
    snapshot = describe.capabilities.snapshot
    plans = [
        (tasks[i % len(tasks)], probe_actions[i % len(probe_actions)],
         probe_actions[(i // len(probe_actions)) % len(probe_actions)])
        for i in range(count)
    ]
    expected = {plan: _episode(sessions, *plan, snapshot) for plan in set(plans)}

    start = threading.Barrier(count)

    def run(plan):
        start.wait(timeout=30)
        return _episode(sessions, *plan, snapshot)

    with ThreadPoolExecutor(max_workers=count) as pool:
        results = list(pool.map(run, plans))
    for plan, result in zip(plans, results, strict=True):
        assert result == expected[plan], f"session for {plan} diverged when run in parallel"


def test_idle_sessions_expire(sessions, task_id, limits):
    ttl = limits.session_ttl_seconds
    if ttl > MAX_TESTABLE_TTL_SECONDS:
        pytest.skip(f"session_ttl_seconds={ttl} is too long to wait for (needs <= 5)")
    session = sessions.reset(task_id).session_id
    time.sleep(ttl + 1.5)
    expect_status(grpc.StatusCode.NOT_FOUND, sessions.step, session, "anything")


def test_used_sessions_do_not_expire(sessions, task_id, limits, needs_snapshot):
    ttl = limits.session_ttl_seconds
    if ttl > MAX_TESTABLE_TTL_SECONDS:
        pytest.skip(f"session_ttl_seconds={ttl} is too long to wait for (needs <= 5)")
    session = sessions.reset(task_id).session_id
    for _ in range(3):
        time.sleep(ttl * 0.4)
        sessions.snapshot(session)
    assert sessions.step(session, "anything").steps == 1


def test_capacity_is_resource_exhausted(sessions, task_id, limits):
    if limits.max_sessions > MAX_TESTABLE_SESSIONS:
        pytest.skip(f"max_sessions={limits.max_sessions} is too many to fill (needs <= 256)")
    refused = None
    for _ in range(limits.max_sessions + 1):
        try:
            sessions.reset(task_id)
        except grpc.RpcError as error:
            refused = error
            break
    assert refused is not None, f"{limits.max_sessions + 1} sessions opened; cap not enforced"
    assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, refused.details()
    assert refused.details(), "RESOURCE_EXHAUSTED must say what to do"
    sessions.close_all()
    assert sessions.reset(task_id).session_id, "closing sessions must free capacity"
