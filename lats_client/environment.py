"""The environment client, blocking: `EnvClient(address)`, for driving an
environment server yourself (an RL loop, your own search) instead of through
the planner.

    with EnvClient("127.0.0.1:50051") as env:
        about = env.describe()                    # name, grammar, rewards, limits
        state = env.reset(env.list_tasks()[0])    # the first State
        step = env.step(state, about.action_examples[0])
        print(step.observation, step.reward, step.done)
        again = env.step(state, "...")            # revert: step from any earlier State
        print(env.score(step.state).success)      # graded against hidden ground truth

A `State` is a snapshot (lats.environment.v2): no session lives on the server,
so any state can be stepped from again, any number of times, on any replica;
the same state and action give the same `Transition`. `address` names one
server, several replicas (host:port,host:port) or dns:///name:port.

A failed call raises a `LatsError` naming the environment and its address
(lats_client.errors): `TaskNotFound` for an unknown task, `InvalidRequest`
for what the server refuses (its message says what to fix),
`ServiceUnavailable` when no server answers. An argument the client cannot
send raises `InvalidSetting` naming it, and a step from a state whose
episode ended raises `EpisodeEnded`, both before any call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import grpc

from lats_pb import environment_pb2 as env_pb
from lats_pb import environment_pb2_grpc as env_grpc
from lats_runtime.channels import open_blocking_channel

from lats_client.environment_types import (Description, State, TaskPage, Transition, score_of,
                                           started_state)
from lats_client.errors import (EpisodeEnded, InvalidSetting, NotAnEnvironment, TaskNotFound,
                                service_error)
from lats_client.types import Score

SERVICE = "environment"
DEFAULT_TIMEOUT = 120.0           # seconds per call (a code runner's batch takes a while)
MAX_PAGE = 1000
_CLASSES = {grpc.StatusCode.NOT_FOUND: TaskNotFound,
            grpc.StatusCode.UNIMPLEMENTED: NotAnEnvironment}


class EnvClient:
    """A blocking client of the environment server at `address` (see the module docstring)."""

    def __init__(self, address: str, *, timeout: float = DEFAULT_TIMEOUT):
        self.address = address
        self.timeout = timeout
        self._channel = open_blocking_channel(address)
        self._stub = env_grpc.EnvironmentStub(self._channel)

    def describe(self) -> Description:
        """What the environment is: grammar, rewards, limits, splits, facts."""
        return Description.from_message(self._call("Describe", env_pb.DescribeRequest()))

    def tasks_page(self, split: str = "", *, page_size: int = 0,
                   page_token: str = "") -> TaskPage:
        """One page of `split`'s task ids ("": the default split; page_size 0: the
        server's default, 100)."""
        _check(isinstance(split, str), "split", split, "a split name (see describe().splits)")
        _check(_is_count(page_size), "page_size", page_size, "a whole number >= 0")
        reply = self._call("ListTasks", env_pb.ListTasksRequest(
            split=split, page_size=page_size, page_token=page_token))
        return TaskPage(tuple(reply.task_ids), reply.next_page_token, reply.total)

    def list_tasks(self, split: str = "", *, limit: int | None = None) -> list[str]:
        """Up to `limit` task ids of `split` (None: all), reading as many pages as
        that takes."""
        _check(limit is None or _is_count(limit), "limit", limit, "a whole number >= 0, or None")
        found: list[str] = []
        token = ""
        while limit is None or len(found) < limit:
            page = self.tasks_page(split, page_size=MAX_PAGE, page_token=token)
            found += page.task_ids
            token = page.next_page_token
            if not token:
                break
        return found if limit is None else found[:limit]

    def reset(self, task_id: str | None = None, *, inline_task: Mapping[str, Any] | None = None,
              seed: int = 0, options: Mapping[str, str] | None = None) -> State:
        """Starts an episode of a listed task (or of `inline_task`, where the server
        takes them) and returns its first State."""
        _check((task_id is None) != (inline_task is None), "task_id",
               task_id, "name a task id or give inline_task, one of the two")
        request = env_pb.ResetRequest(seed=_seed(seed), options=_options(options))
        if inline_task is not None:
            _check(isinstance(inline_task, Mapping), "inline_task", inline_task,
                   "a mapping (a JSON object)")
            try:
                request.inline_task.update(dict(inline_task))
            except (ValueError, TypeError) as error:
                raise InvalidSetting("inline_task", inline_task,
                                     f"JSON values only ({error})") from None
        else:
            _check(isinstance(task_id, str) and task_id.strip() != "", "task_id", task_id,
                   "a task id from list_tasks()")
            request.task_id = task_id
        return started_state(self._call("Reset", request))

    def step(self, state: State, action: str) -> Transition:
        """`action` from `state`: the Transition, whose `.state` is where it leads."""
        return self.step_all(state, [action])[0]

    def step_all(self, state: State, actions: Sequence[str]) -> list[Transition]:
        """Each action on its own from the same `state` (the branches of one
        expansion), in one call: one Transition per action, in order. At most
        describe().limits.max_batch_actions actions."""
        _check_state(state)
        _check(not isinstance(actions, str) and isinstance(actions, Sequence) and actions,
               "actions", actions, "a non-empty list of actions")
        for action in actions:
            _check(isinstance(action, str) and action.strip() != "", "action", action,
                   "non-empty text (an action the grammar describes)")
        if state.done:
            raise EpisodeEnded(f"state: the episode of {state.task_id!r} ended at step "
                               f"{state.steps}; reset, or step from an earlier state")
        reply = self._call("Step", env_pb.StepRequest(snapshot=state.snapshot,
                                                      actions=list(actions)))
        return [Transition.from_message(action, state.task_id, result)
                for action, result in zip(actions, reply.results)]

    def score(self, state: State) -> Score:
        """Grades `state` against the environment's hidden ground truth (never
        feed this back into a search: see docs/protocol.md, Score)."""
        _check_state(state)
        return score_of(self._call("Score", env_pb.ScoreRequest(snapshot=state.snapshot)))

    # ------------------------------------------------------------- plumbing
    def _call(self, name: str, request):
        try:
            return getattr(self._stub, name)(request, timeout=self.timeout)
        except grpc.RpcError as error:
            raise service_error(SERVICE, self.address, error, _CLASSES) from None

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> EnvClient:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def _check(ok: Any, field: str, value: Any, takes: str) -> None:
    if not ok:
        raise InvalidSetting(field, value, takes)


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _check_state(state: Any) -> None:
    _check(isinstance(state, State), "state", state,
           "a State from reset() or step() (snapshots are opaque: pass them back as received)")


def _seed(seed: Any) -> int:
    _check(isinstance(seed, int) and not isinstance(seed, bool) and -2**63 <= seed < 2**63,
           "seed", seed, "a whole number (64-bit)")
    return seed


def _options(options: Mapping[str, str] | None) -> dict[str, str]:
    if options is None:
        return {}
    _check(isinstance(options, Mapping) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in options.items()),
        "options", options, "a mapping of text to text (the environment's Reset options)")
    return dict(options)


__all__ = ["EnvClient"]
