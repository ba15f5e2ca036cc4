"""One Solve's run, from the request to its stored record: a run's lifecycle.

  prepare  ask the gateway for its samples-per-call limit (failing fast when
           none answers), describe the environment, resolve the method and the
           effective config and check the request against them, and make sure
           the environment knows the task (one Reset, its episode dropped); a
           `Refused` says why a run cannot start, and no run is stored
  start    name the run (its log lines and calls carry the id), build its
           record, event sink, model client (with the request's budget),
           fallback environment and search; keep it with the replica's live
           runs, store it RUNNING and start the search
  stream   the search's events as it emits them, then `finished` with the
           run's result (status ERROR naming the failure if the search raised)
  finish   always, also when the client cancelled or the planner is stopping:
           stop a search cut short (CANCELLED by its client, or INTERRUPTED while
           the planner shuts down), close the fallback environment, store the final record (a write
           that a second cancellation does not stop) and count the run's metrics
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import time
import uuid
from collections.abc import AsyncIterator

import grpc

from lats_pb import environment_pb2 as env_pb
from lats_pb import planner_pb2 as pb
from lats_runtime.run_context import enter_run
from lats_runtime.run_status import RunStatus, from_wire, to_wire

from planner.config import ConfigError, effective_config, resolve_method, to_proto
from planner.environment import Environment, TaskRef, complete_answer_actions
from planner.live_runs import LiveRun
from planner.methods.registry import MethodSpec
from planner.metrics import SEARCH_NODES, SEARCH_SECONDS, SEARCHES, SEARCHES_IN_FLIGHT
from planner.model_client import GatewayModel, RunBudget
from planner.replica import Replica
from planner.request_checks import sampling_problem
from planner.run_events import QueueSink
from planner.runs.store import interrupted
from planner.search import Search, SearchOutcome
from planner.search_config import LatsConfig
from planner.call_log import CallLog

log = logging.getLogger(__name__)


class Refused(Exception):
    """A Solve whose run cannot start; the message says why."""


class InvalidSolve(Refused):
    """The request does not fit the environment, the method or the gateway."""


class ServiceMissing(Refused):
    """No gateway or environment answered."""


class OtherProtocol(Refused):
    """The environment speaks another protocol version."""


class UnknownTask(Refused):
    """The environment has no task with the request's task_id."""


def second_term(config: LatsConfig) -> str:
    """What the value mixes with the LM score: "sc" or "reward"."""
    return "reward" if config.reward_in_value else "sc"


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


class SolveRun:
    """One run of one Solve request: `prepare`, then `start`, `stream` and `finish`."""

    # what `start` builds
    run: pb.Run                       # the run's record, as the store and watchers see it
    live: LiveRun
    queue: asyncio.Queue              # the search's events, then None once it has ended
    sink: QueueSink
    model: GatewayModel
    fallback_env: Environment | None
    search: Search
    search_task: asyncio.Task
    began: float                      # time.monotonic() at the start

    def __init__(self, replica: Replica, request: pb.SolveRequest, task: TaskRef,
                 env: Environment, description: env_pb.DescribeResponse, method: MethodSpec,
                 config: LatsConfig):
        self.replica = replica
        self.request = request
        self.task = task
        self.env = env
        self.description = description
        self.method = method
        self.config = config

    @classmethod
    async def prepare(cls, replica: Replica, request: pb.SolveRequest, task: TaskRef,
                      env: Environment) -> SolveRun:
        """The run the request asks for, checked against the gateway and the environment."""
        max_samples = await _gateway_max_samples(replica)   # no gateway: fail fast
        description = await _describe(env)
        try:
            method = resolve_method(request.config)
            config = effective_config(request.config, description.prompt_pack.search_hints,
                                      description.prompt_pack.paper_search_hints)
        except ConfigError as exc:
            raise InvalidSolve(str(exc)) from None
        if method.complete_answers_only and not complete_answer_actions(description):
            raise InvalidSolve(f"method {method.name} samples whole answers, but in "
                               f"{description.name} an action is one step of an answer "
                               "(facts.complete_answer_actions is false); use react_bok")
        problem = sampling_problem(config, max_samples)
        if problem:
            raise InvalidSolve(problem)
        await _check_task(env, task, description)
        return cls(replica, request, task, env, description, method, config)

    async def start(self) -> None:
        """Builds the run and its search, stores it RUNNING and starts the search."""
        request, description, config = self.request, self.description, self.config
        run_id = request.run_id or uuid.uuid4().hex
        enter_run(run_id)        # log lines and calls to other services name the run
        self.run = run = self._record(run_id)
        self.live = live = LiveRun(run=run,
                                   calls=CallLog(description.prompt_pack.action_prefix_pattern))
        self.queue = asyncio.Queue()
        self.sink = QueueSink(live, self.queue, config=run.result.config,
                              environment=run.result.environment,
                              reward_mode=description.reward_mode,
                              second_term=run.result.second_term)
        budget = request.config.budget
        self.model = GatewayModel(self.replica.gateway, run_id, request.config.model,
                                  RunBudget(budget.max_calls, budget.max_total_tokens),
                                  record=live.calls.record)
        self.fallback_env = None
        if request.config.fallback_env_address:
            self.fallback_env = self.replica.connect(request.config.fallback_env_address)
        self.search = live.search = self.method.search(
            self.env, description, self.model, config, self.task, self.sink, self.fallback_env)
        await self.replica.runs.add(live)
        log.info("run %s started: %s task %s, method %s (n=%d k=%d d=%d)", run_id,
                 run.result.environment, self.task.task_id or "(inline)", run.result.method,
                 config.n_samples, config.iterations, config.max_depth)
        SEARCHES_IN_FLIGHT.labels(run.result.method).inc()
        self.began = time.monotonic()
        self.search_task = asyncio.create_task(self.search.run())
        self.search_task.add_done_callback(lambda _: self.queue.put_nowait(None))

    def _record(self, run_id: str) -> pb.Run:
        """The run's first record: RUNNING, owned here, with what it runs and how."""
        settings, description = self.replica.settings, self.description
        config_message = to_proto(self.config, self.request.config)
        run = pb.Run(run_id=run_id, status=to_wire(RunStatus.RUNNING), created_at=_now(),
                     task_id=self.task.task_id, owner=settings.owner,
                     owner_address=settings.address)
        run.result.environment = f"{description.name}@{description.version}"
        run.result.method = config_message.method
        run.result.config.CopyFrom(config_message)
        run.result.reward_mode = description.reward_mode
        run.result.second_term = second_term(self.config)
        run.result.partial_credit_rewards = description.facts.partial_credit_rewards
        return run

    async def stream(self) -> AsyncIterator[pb.SearchEvent]:
        """The search's events as it emits them; the last is `finished`."""
        while (event := await self.queue.get()) is not None:
            yield event
        try:
            outcome = self.search_task.result()
            error = ""
        except Exception as exc:  # environment or gateway failure
            log.warning("run %s failed: %s", self.run.run_id, exc)
            outcome, error = self.search.partial_outcome(RunStatus.ERROR), _describe_error(exc)
        result = finished_result(self.run, outcome, self.search, self.model, error)
        self.run.status = result.status
        self.run.result.CopyFrom(result)
        self.sink.emit(finished=result)
        yield self.queue.get_nowait()

    async def finish(self) -> None:
        """Ends the run however the stream ended, and stores its final record."""
        run, runs = self.run, self.replica.runs
        if not self.search_task.done():
            self.search_task.cancel()
            if runs.closing:
                interrupted(run, f"planner {runs.owner} shut down during the search")
            else:
                run.status = run.result.status = to_wire(RunStatus.CANCELLED)
                run.result.error = "the client cancelled the search"
        if self.fallback_env is not None:
            await self.fallback_env.aclose()
        stored = None
        try:
            # shielded: a handler cancelled again (the server stopping) still stores
            stored = await asyncio.shield(runs.store_final(self.live))
        finally:
            self.live.feed.close()
            _count_finished(stored or run, time.monotonic() - self.began)


def finished_result(run: pb.Run, outcome: SearchOutcome, search: Search, model: GatewayModel,
                    error: str) -> pb.RunResult:
    """The run's result: what it ran (as started), the outcome, the tree and the model's use."""
    result = pb.RunResult()
    result.CopyFrom(run.result)
    result.task_id = run.task_id
    result.status = to_wire(outcome.status)
    result.iterations = outcome.iterations
    result.nodes_expanded = search.nodes_expanded
    result.nodes = sum(1 for _ in search.root.walk()) if search.root else 0
    result.wall_seconds = outcome.wall_seconds
    result.error = error
    result.stop_reason = outcome.reason
    result.model = model.model_name
    result.model_seconds = model.busy.seconds
    result.usage.calls = model.usage.calls
    result.usage.prompt_tokens = model.usage.prompt_tokens
    result.usage.completion_tokens = model.usage.completion_tokens
    result.usage.cached_prompt_tokens = model.usage.cached_prompt_tokens
    result.calls_by_kind.update(model.calls_by_kind)
    if outcome.answer is not None:
        result.answer_node_id = outcome.answer.id
        result.actions.extend(n.action for n in outcome.answer.trajectory())
        result.final_observation = outcome.answer.observation
        result.reward = outcome.answer.reward
    if outcome.score is not None:
        result.score.CopyFrom(outcome.score)
        result.scored = True
    ctx = search.context
    result.value_parse_failures = ctx.value_parse_failures
    result.repeats_merged = ctx.answers.repeats_merged
    if ctx.answers.greedy is not None:
        result.greedy_node_id = ctx.answers.greedy.id
    result.answer_reason = outcome.answer_reason
    return result


async def _gateway_max_samples(replica: Replica) -> int:
    """The gateway's published samples-per-call limit (0 if it states none).

    Fails fast: when no gateway answers DescribeBackend within
    `gateway_check_seconds`, the Solve is refused naming the gateway and its
    address, before a run starts that could make no model call. (The model
    calls of a search keep the gateway client's longer retry window.)
    """
    seconds = replica.settings.gateway_check_seconds
    try:
        return (await replica.gateway.describe_backend(within=seconds)).max_samples
    except grpc.aio.AioRpcError as exc:
        if exc.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
            raise ServiceMissing(
                f"no LLM gateway answered within {seconds:g}s ({exc.details()}); start "
                "the gateway, or point the planner's --gateway at a running one") from None
        log.info("gateway limits unknown (%s); not checking sample counts up front",
                 exc.details())
        return 0


async def _describe(env: Environment) -> env_pb.DescribeResponse:
    """The environment's DescribeResponse."""
    try:
        return await env.describe()
    except grpc.aio.AioRpcError as exc:
        if exc.code() == grpc.StatusCode.FAILED_PRECONDITION:   # another protocol version
            raise OtherProtocol(exc.details()) from None
        raise ServiceMissing(f"cannot reach the environment: {exc.details()}") from None


async def _check_task(env: Environment, task: TaskRef,
                      description: env_pb.DescribeResponse) -> None:
    """UnknownTask when the environment answers a Reset of `task`'s id with
    NOT_FOUND; any other failure is left to the search, which reports it."""
    if not task.task_id:
        return
    try:
        await env.start(TaskRef(task_id=task.task_id, seed=task.seed))
    except grpc.aio.AioRpcError as exc:
        if exc.code() == grpc.StatusCode.NOT_FOUND:
            raise UnknownTask(f"task_id {task.task_id!r} is not a task of {description.name} "
                              f"(see its ListTasks): {exc.details()}") from None


def _count_finished(run: pb.Run, seconds: float) -> None:
    method = run.result.method or "lats"
    status = from_wire(run.status)
    SEARCHES_IN_FLIGHT.labels(method).dec()
    SEARCHES.labels(method, status).inc()
    SEARCH_SECONDS.labels(method).observe(seconds)
    SEARCH_NODES.labels(method).inc(len(run.nodes))
    usage = run.result.usage
    log.info("run %s %s after %d iterations, %d nodes, %d model calls (%d tokens), %.1fs%s",
             run.run_id, status, run.result.iterations, len(run.nodes), usage.calls,
             usage.prompt_tokens + usage.completion_tokens, seconds,
             f": {run.result.error}" if run.result.error else "")


def _describe_error(exc: BaseException) -> str:
    if isinstance(exc, grpc.aio.AioRpcError):
        return f"{exc.code().name}: {exc.details()}"
    return f"{type(exc).__name__}: {exc}"
