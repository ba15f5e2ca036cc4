"""Step semantics: observations for bad actions, step counting, batches, request limits."""

from __future__ import annotations

import itertools
import threading
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
from lats_pb import environment_pb2

from lats.conformance.helpers import (
    MAX_PLAYABLE_STEPS,
    PROTOCOL_MAX_MESSAGE_BYTES,
    Outcome,
    expect_status,
    garbage_actions,
)

PARALLEL_EPISODES = 32


def _in_range(describe, reward: float) -> bool:
    return describe.reward_range.min <= reward <= describe.reward_range.max


def test_garbage_actions_get_an_observation_not_an_error(episodes, first_snapshot, describe):
    for action in garbage_actions(4):
        result = episodes.step_one(first_snapshot, action)
        assert result.observation.strip(), f"no observation for garbage action {action!r}"
        assert result.steps == 1, f"the first step reports steps={result.steps}"
        assert _in_range(describe, result.reward), f"reward {result.reward} out of range"
        assert result.snapshot.WhichOneof("kind"), "a step result must carry its snapshot"
        if result.invalid_action:
            assert not result.terminated, "an invalid action must not end the episode"


def test_grammar_examples_play_in_order_without_error(episodes, first_snapshot, describe):
    """The examples, in order, in one episode from the start of the kit's task."""
    outcomes = episodes.outcomes(first_snapshot, describe.action_grammar.examples)
    for number, outcome in enumerate(outcomes, start=1):
        example = describe.action_grammar.examples[number - 1]
        assert not outcome.error, f"example {number} ({example!r}) failed with {outcome.error}"
        assert outcome.observation.strip(), f"example {number} ({example!r}) gave no observation"
        assert _in_range(describe, outcome.reward), f"reward {outcome.reward} out of range"


def test_every_step_counts_and_the_limit_truncates(episodes, first_snapshot, limits):
    if limits.max_steps > MAX_PLAYABLE_STEPS:
        pytest.skip(f"max_steps={limits.max_steps} is too many steps to play out")
    outcomes = episodes.outcomes(first_snapshot, garbage_actions(limits.max_steps + 1))
    for number, outcome in enumerate(outcomes, start=1):
        assert not outcome.error, f"step {number} failed with {outcome.error}"
        assert outcome.steps == number, f"step {number} reported steps={outcome.steps}"
        assert not (outcome.terminated and outcome.truncated), "terminated and truncated both set"
        if outcome.truncated:
            assert number == limits.max_steps, (
                f"truncated at step {number}; truncate on the step that reaches "
                f"max_steps={limits.max_steps}")
    last = outcomes[-1]
    assert last.terminated or last.truncated, (
        f"the episode did not end after max_steps={limits.max_steps} steps; invalid actions "
        "count as steps, and the step that reaches max_steps is truncated")
    if not last.terminated:
        assert last.steps == limits.max_steps and last.truncated


def test_step_after_the_end_is_failed_precondition(episodes, task_id, limits):
    ended = episodes.ended_snapshot(task_id, limits.max_steps)
    for action in garbage_actions(2, seed=7):
        expect_status(grpc.StatusCode.FAILED_PRECONDITION, episodes.step_one, ended, action,
                      what="a Step on the snapshot of an ended episode")


def test_invalid_action_leaves_the_state_unchanged(episodes, first_snapshot, probe_actions,
                                                   limits):
    if limits.max_steps < 3:
        pytest.skip("max_steps is too small to step after an invalid action")
    result = episodes.step_one(first_snapshot, garbage_actions(1)[0])
    if not result.invalid_action:
        pytest.skip("this environment treats the garbage action as a valid action")
    for probe in probe_actions[:2]:
        from_before = Outcome.of(episodes.step_one(first_snapshot, probe))
        from_after = Outcome.of(episodes.step_one(result.snapshot, probe))
        before, after = (o._replace(steps=0, truncated=False) for o in (from_before, from_after))
        assert before == after, (
            f"an invalid action changed the state: {probe!r} after it differs from {probe!r} "
            f"before it in {_differences(before, after)}. Its observation before the "
            f"invalid action: {_quoted(before.observation)}; after it: "
            f"{_quoted(after.observation)}. The state an invalid action leaves includes the "
            "observation: one that shows a step counter or a move history changes with "
            "every step; keep counters in steps and info (docs/protocol.md, Step)")
        assert from_after.steps == from_before.steps + 1, "the invalid action did not count"


def _quoted(text: str, limit: int = 500) -> str:
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}... ({len(text)} chars)"


def _differences(before, after) -> str:
    return "; ".join(f"{name} {getattr(before, name)!r:.200} vs {getattr(after, name)!r:.200}"
                     for name in before._fields if getattr(before, name) != getattr(after, name))


def test_batch_results_keep_request_order(episodes, first_snapshot, probe_actions, limits):
    batch = probe_actions[: max(1, min(len(probe_actions), limits.max_batch_actions))]
    together = episodes.step(first_snapshot, batch)
    assert len(together) == len(batch), "one result per action"
    alone = [episodes.step_one(first_snapshot, action) for action in batch]
    assert [Outcome.of(r) for r in together] == [Outcome.of(r) for r in alone], (
        "a batch answered differently from (or in another order than) single calls")
    for action, batched, single in zip(batch, together, alone):
        continued = episodes.outcomes(batched.snapshot, probe_actions[:2])
        assert continued == episodes.outcomes(single.snapshot, probe_actions[:2]), (
            f"the snapshot after {action!r} in a batch plays on differently from the one "
            "after the same action alone")


def test_batch_limits_are_invalid_argument(episodes, first_snapshot, probe_actions, limits):
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, episodes.step, first_snapshot, [],
                  what="a Step with no actions")
    too_many = list(itertools.islice(itertools.cycle(probe_actions), limits.max_batch_actions + 1))
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, episodes.step, first_snapshot, too_many,
                  what=f"a Step of {len(too_many)} actions (max_batch_actions + 1)")
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, episodes.step, first_snapshot,
                  [probe_actions[0], "   "], what="a batch with an all-whitespace action")


def test_step_without_a_snapshot_is_invalid_argument(stub, rpc_timeout, probe_actions):
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, stub.Step,
                  environment_pb2.StepRequest(actions=probe_actions[:1]), timeout=rpc_timeout,
                  what="a Step naming no snapshot")


def test_empty_action_is_invalid_argument(episodes, first_snapshot):
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, episodes.step_one, first_snapshot, "",
                  what="an empty action")


def test_oversized_action_is_invalid_argument(episodes, first_snapshot, limits):
    limit = limits.max_action_bytes
    if limit < PROTOCOL_MAX_MESSAGE_BYTES - 1024:
        at_limit = episodes.step_one(first_snapshot, "~" * limit)
        assert at_limit.steps == 1, "an action of exactly max_action_bytes must be accepted"
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, episodes.step_one, first_snapshot,
                  "~" * (limit + 1), what="an action of max_action_bytes + 1 bytes")


def test_a_request_over_4_mib_is_refused_as_too_large(episodes, first_snapshot, limits):
    """A request over 4 MiB must be refused: RESOURCE_EXHAUSTED by a server that does not
    read it, or INVALID_ARGUMENT by one that does, for its action over max_action_bytes
    (docs/protocol.md, Statuses)."""
    huge = "~" * (PROTOCOL_MAX_MESSAGE_BYTES + 1024)
    with pytest.raises(grpc.RpcError) as caught:
        episodes.step_one(first_snapshot, huge)
        pytest.fail("a Step carrying an action over 4 MiB succeeded")
    code, details = caught.value.code(), caught.value.details() or ""
    assert code in (grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.INVALID_ARGUMENT), (
        f"a request over 4 MiB: expected RESOURCE_EXHAUSTED (too large to read) or "
        f"INVALID_ARGUMENT (an action over max_action_bytes), got {code.name}: {details}")
    if code == grpc.StatusCode.INVALID_ARGUMENT:
        assert limits.max_action_bytes < len(huge) and "max_action_bytes" in details, details


def _first_tasks(stub, rpc_timeout, task_id, count=5):
    listed = stub.ListTasks(environment_pb2.ListTasksRequest(page_size=count), timeout=rpc_timeout)
    return list(dict.fromkeys([task_id, *listed.task_ids]))[:count]


def test_parallel_episodes_stay_independent(episodes, stub, rpc_timeout, task_id,
                                            probe_actions):
    """Many episodes at once (Reset, Step, Step on) answer as they do one at a time."""
    tasks = _first_tasks(stub, rpc_timeout, task_id)
    plans = [(tasks[i % len(tasks)], probe_actions[i % len(probe_actions)],
              probe_actions[(i // len(probe_actions)) % len(probe_actions)])
             for i in range(PARALLEL_EPISODES)]

    def episode(plan):
        task, first, second = plan
        reset = episodes.reset(task)
        return [reset.observation, *episodes.outcomes(reset.snapshot, [first, second])]

    expected = {plan: episode(plan) for plan in set(plans)}
    start = threading.Barrier(len(plans))

    def run(plan):
        start.wait(timeout=30)
        return episode(plan)

    with ThreadPoolExecutor(max_workers=len(plans)) as pool:
        results = list(pool.map(run, plans))
    for plan, result in zip(plans, results, strict=True):
        assert result == expected[plan], f"the episode {plan} diverged when run in parallel"
