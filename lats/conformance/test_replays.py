"""States named by replay (servers without snapshots): the stateless rules hold.

A server that cannot snapshot names its states by replay: the task and every
action since its start. The same rules bind it as a server with blobs: a
batch answers as single calls do, in request order; batch limits and an
ended episode are refused with their statuses; Score of a replay agrees with
the session that played it; and two replicas answer a replay identically.
"""

from __future__ import annotations

import itertools

import grpc
import pytest
from lats_pb import environment_pb2

from lats.conformance.helpers import Outcome, expect_status, garbage_actions


@pytest.fixture
def needs_replay(describe) -> None:
    if describe.capabilities.snapshot:
        pytest.skip("the server has snapshots; replays are for servers without them")


pytestmark = pytest.mark.usefixtures("needs_replay")


def _replay(task_id: str, actions=()) -> environment_pb2.Replay:
    return environment_pb2.Replay(start=environment_pb2.StartRequest(task_id=task_id),
                                  actions=list(actions))


def _transition(stub, timeout, replay, actions) -> list[environment_pb2.TransitionResult]:
    request = environment_pb2.TransitionRequest(replay=replay, actions=list(actions))
    return list(stub.Transition(request, timeout=timeout).results)


def _play(stub, timeout, task_id, script) -> list[Outcome]:
    """Plays `script` one replayed Transition at a time (the planner's way)."""
    outcomes, taken = [], []
    for action in script:
        try:
            result, = _transition(stub, timeout, _replay(task_id, taken), [action])
        except grpc.RpcError as error:
            outcomes.append(Outcome.failed(error))
            break
        outcome = Outcome.of(result.step)
        assert not result.blob, "a server without snapshots returns no blob"
        outcomes.append(outcome)
        if outcome.ended:
            break
        taken.append(action)
    return outcomes


def test_replay_batch_results_keep_request_order(stub, task_id, probe_actions, limits,
                                                 rpc_timeout):
    batch = probe_actions[: max(1, min(len(probe_actions), limits.max_batch_actions))]
    state = _replay(task_id, probe_actions[:1])
    together = _transition(stub, rpc_timeout, state, batch)
    assert len(together) == len(batch), "one result per action"
    alone = [_transition(stub, rpc_timeout, state, [action])[0] for action in batch]
    assert [Outcome.of(r.step) for r in together] == [Outcome.of(r.step) for r in alone], (
        "a batch on a replay answered differently from (or in another order than) single calls")


def test_replay_batch_limits_are_invalid_argument(stub, task_id, probe_actions, limits,
                                                  rpc_timeout):
    state = _replay(task_id)
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, _transition, stub, rpc_timeout, state, [])
    too_many = list(itertools.islice(itertools.cycle(probe_actions), limits.max_batch_actions + 1))
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, _transition, stub, rpc_timeout, state,
                  too_many)
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, _transition, stub, rpc_timeout,
                  _replay(task_id, ["   "]), [probe_actions[0]])


def test_replay_after_the_end_is_failed_precondition(stub, task_id, limits, rpc_timeout):
    if limits.max_steps > 500:
        pytest.skip(f"max_steps={limits.max_steps} is too many steps to play out")
    outcomes = _play(stub, rpc_timeout, task_id, garbage_actions(limits.max_steps + 1))
    assert outcomes[-1].ended and not outcomes[-1].error, (
        f"the episode did not end after max_steps={limits.max_steps} steps")
    played = garbage_actions(limits.max_steps + 1)[:len(outcomes)]
    expect_status(grpc.StatusCode.FAILED_PRECONDITION, _transition, stub, rpc_timeout,
                  _replay(task_id, played), ["~more~"])


def test_replay_of_an_unknown_task_is_not_found(stub, probe_actions, rpc_timeout):
    expect_status(grpc.StatusCode.NOT_FOUND, _transition, stub, rpc_timeout,
                  _replay("conformance-no-such-task"), [probe_actions[0]])


def test_replay_scores_like_the_session_that_played_it(sessions, stub, rpc_timeout, task_id,
                                                       probe_actions, describe):
    if not describe.capabilities.score:
        pytest.skip("the server does not support Score (capabilities.score)")
    session = sessions.reset(task_id).session_id
    played = probe_actions[:len(sessions.play(session, probe_actions[:2]))]
    on_session = stub.Score(environment_pb2.ScoreRequest(session_id=session), timeout=rpc_timeout)
    on_replay = stub.Score(environment_pb2.ScoreRequest(replay=_replay(task_id, played)),
                           timeout=rpc_timeout)
    assert (on_replay.score, on_replay.success, dict(on_replay.metrics)) == (
        on_session.score, on_session.success, dict(on_session.metrics)), (
        "Score differs between a session and the replay of its actions")


def test_replays_answer_identically_on_a_second_replica(stub, second_stub, task_id,
                                                        probe_actions, limits, rpc_timeout):
    cycle = itertools.cycle(probe_actions[1:] + probe_actions[:1])
    script = list(itertools.islice(cycle, limits.max_steps))
    here = _play(stub, rpc_timeout, task_id, script)
    there = _play(second_stub, rpc_timeout, task_id, script)
    assert there == here, "two replicas answered the same replays differently"
