"""The Planner gRPC service: Solve streams a search as it grows; GetRun reads runs.

Solve validates the request, describes the environment, runs the requested
search method (planner.methods: LATS by default, its ablations and the
baselines) with every model call going through the LLM gateway, and streams
SearchEvents; the last event is always `finished` (with status ERROR and a
message naming the failed service if the search failed on an environment or
gateway error). If the client cancels, the search stops.

Replicas: runs live in a RunStore that every planner replica may share
(planner.runs), so any replica answers GetRun and ListRuns for any run. Beside each run the
store keeps its expansion calls (prompts and completions, planner.transcripts)
for `lats runs export --format trl`; they are written with the tree. This replica owns
the runs it executes: a lease keeper renews their heartbeat and stores their
growing tree every `heartbeat_seconds`, and marks INTERRUPTED any run whose
planner stopped renewing. On shutdown the runs still going are stored
INTERRUPTED. Environment and gateway addresses may name several replicas;
every environment call is stateless and retried on another replica.

Watching: each event is published, as the search emits it, to the run's feed
(planner.feed); WatchRun streams a snapshot of the run and then those same
events, on the planner that executes the run (its record's `owner_address`).
Every search runs in the scope of its run id (lats_runtime.run_context), so
the planner's log lines and its calls to the gateway and the environments
carry it.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
import os
import socket
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

import grpc

from lats_pb import planner_pb2 as pb
from lats_pb import planner_pb2_grpc as pb_grpc
from lats_runtime.quoting import quoted

from lats_runtime.run_context import enter_run, run_id_problem
from planner.config import ConfigError, effective_config, resolve_method, to_proto
from planner.convert import node_message
from planner.environment import Environment, TaskRef
from planner.environment_client import connect_environment
from planner.events import EventSink
from planner.feed import RunFeed, WatcherFellBehind
from planner.search import Search, SearchOutcome
from planner.search_config import LatsConfig
from planner.metrics import (SEARCH_NODES, SEARCH_SECONDS, SEARCHES, SEARCHES_IN_FLIGHT,
                             WATCHERS)
from planner.model_client import GatewayModel, RunBudget
from planner.request_checks import request_problem, sampling_problem
from planner.run_listing import ListRunsProblem, list_page
from planner.runs import LeaseSettings, RunStore
from planner.runs.store import interrupted
from planner.transcripts import CallLog
from planner.tree import Node

log = logging.getLogger(__name__)

_STATUS = {"solved": pb.RUN_STATUS_SOLVED, "failed": pb.RUN_STATUS_FAILED}


def second_term(config: LatsConfig) -> str:
    """What the value mixes with the LM score: "sc" or "reward"."""
    return "reward" if config.reward_in_value else "sc"


class QueueSink(EventSink):
    """Turns search callbacks into numbered SearchEvent messages: queued for the
    Solve stream, published to the run's watchers, and kept in its live record.

    `started` is filled in from `started_fields` (the effective config, the
    environment, its reward mode and the value's second term).
    """

    def __init__(self, live: LiveRun, queue: asyncio.Queue, **started_fields):
        self.live = live
        self.run_id = live.run.run_id
        self.queue = queue
        self.seq = 0
        self._started_fields = started_fields

    def emit(self, **event) -> None:
        self.seq += 1
        message = pb.SearchEvent(run_id=self.run_id, seq=self.seq, **event)
        self.live.run.last_seq = self.seq
        self.queue.put_nowait(message)
        self.live.feed.publish(message)

    def setup_started(self, option: str) -> None:
        self.emit(setup_started=pb.SetupStarted(option=option))

    def setup_finished(self, option: str, text: str, seconds: float) -> None:
        self.live.run.setup = text
        self.emit(setup_finished=pb.SetupFinished(option=option, text=text, seconds=seconds))

    def started(self, task_id: str, task: str) -> None:
        self.live.run.task_id = task_id
        self.emit(started=pb.RunStarted(task_id=task_id, task=task, **self._started_fields))

    def iteration(self, iteration: int) -> None:
        self.emit(iteration=pb.IterationStarted(iteration=iteration))

    def selected(self, node: Node, iteration: int) -> None:
        self.emit(selected=pb.NodeSelected(node_id=node.id, iteration=iteration))

    def node_added(self, node: Node) -> None:
        self.emit(node_added=node_message(node))

    def node_evaluated(self, node: Node) -> None:
        self.emit(node_evaluated=node_message(node))

    def terminal(self, node: Node) -> None:
        self.emit(terminal=node_message(node))

    def reflection(self, node: Node, text: str) -> None:
        self.live.run.reflection_notes.add(node_id=node.id, text=text)
        self.emit(reflection=pb.ReflectionAdded(node_id=node.id, text=text))

    def backpropagated(self, leaf: Node, reward: float, path: Sequence[Node]) -> None:
        self.emit(backpropagated=pb.Backpropagated(
            leaf_id=leaf.id, reward=reward, path=[node_message(n) for n in path]))


def replica_name() -> str:
    """This planner process's owner name in the run store: host, pid, a nonce."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


@dataclass
class PlannerSettings:
    env_timeout: float = 120.0
    max_concurrent_runs: int = 8
    lease: LeaseSettings = field(default_factory=LeaseSettings)
    owner: str = field(default_factory=replica_name)
    address: str = ""                        # where this planner answers WatchRun
    max_watchers: int = 256                  # WatchRun streams open at once
    gateway_check_seconds: float = 5.0       # Solve: the gateway must answer within this


@dataclass
class LiveRun:
    run: pb.Run
    search: Search | None = None
    calls: CallLog = field(default_factory=CallLog)   # model calls kept for training data
    # Held while the run is written, so a heartbeat never overwrites the final record.
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    feed: RunFeed = field(default_factory=RunFeed)


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _run_snapshot(live: LiveRun) -> pb.Run:
    """The run with its current tree and reflections."""
    run = pb.Run()
    run.CopyFrom(live.run)
    search = live.search
    if search is not None and search.root is not None:
        del run.nodes[:]
        run.nodes.extend(node_message(n) for n in search.root.walk())
        del run.reflections[:]
        run.reflections.extend(search.reflections)
    return run


class PlannerServicer(pb_grpc.PlannerServicer):
    def __init__(self, gateway, store: RunStore, settings: PlannerSettings | None = None):
        self._gateway = gateway  # planner.gateway_client.GatewayClient
        self._store = store
        self._settings = settings or PlannerSettings()
        self._slots = asyncio.Semaphore(self._settings.max_concurrent_runs)
        self._live: dict[str, LiveRun] = {}
        self._keeper: asyncio.Task | None = None
        self._shutting_down = False
        self._final_writes: set[asyncio.Future] = set()
        self._watchers = 0

    @property
    def owner(self) -> str:
        return self._settings.owner

    def advertise(self, address: str) -> None:
        """The host:port runs record as where this planner answers WatchRun."""
        self._settings.address = address

    # ----------------------------------------------------------- lifecycle
    async def start(self) -> None:
        """Sweeps lapsed runs once, then keeps leases in the background."""
        await self._sweep()
        self._keeper = asyncio.create_task(self._keep_leases())

    def begin_shutdown(self) -> None:
        """From now on, a search cut short is INTERRUPTED, not an error."""
        self._shutting_down = True

    async def stop(self) -> None:
        """Stops the lease keeper and stores every run still going as INTERRUPTED."""
        self._shutting_down = True
        if self._keeper is not None:
            self._keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._keeper
        for run_id, live in list(self._live.items()):
            async with live.lock:
                if self._live.pop(run_id, None) is live:
                    stored = interrupted(_run_snapshot(live),
                                         f"planner {self.owner} shut down during the search")
                    await self._store.put(stored)
                    await self._store_calls(live)
            live.feed.close()
        # Searches cut short by the server's shutdown write their last record on
        # their own: let every such write land before the store closes.
        if self._final_writes:
            await asyncio.wait(set(self._final_writes), timeout=30)

    async def _store_final(self, run_id: str, live: LiveRun) -> pb.Run:
        """Stores the run's last record; it leaves the live runs as it is written."""
        async with live.lock:
            stored = _run_snapshot(live)
            self._live.pop(run_id, None)
            await self._store.put(stored)
            await self._store_calls(live)
        return stored

    async def _store_calls(self, live: LiveRun) -> None:
        """Stores the run's kept model calls made since the last time (under live.lock)."""
        pending = live.calls.pending()
        if pending:
            await self._store.add_calls(live.run.run_id, pending)
            live.calls.stored(len(pending))

    async def _keep_leases(self) -> None:
        while True:
            await asyncio.sleep(self._settings.lease.heartbeat_seconds)
            try:
                for run_id, live in list(self._live.items()):
                    async with live.lock:
                        if self._live.get(run_id) is live:
                            await self._store.put(_run_snapshot(live))   # renews, with the tree
                            await self._store_calls(live)
                await self._sweep()
            except Exception:  # a store hiccup must not end the keeper
                log.exception("renewing leases failed; retrying in %.1fs",
                              self._settings.lease.heartbeat_seconds)

    async def _sweep(self) -> None:
        lapsed = await self._store.interrupt_lapsed(self._settings.lease.lease_seconds)
        if lapsed:
            log.warning("marked %d run(s) interrupted whose planner stopped renewing: %s",
                        len(lapsed), ", ".join(lapsed))

    async def GetRun(self, request: pb.GetRunRequest, context) -> pb.Run:
        if not request.run_id:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "run_id is required")
        if run_id_problem(request.run_id):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, run_id_problem(request.run_id))
        live = self._live.get(request.run_id)
        if live is not None:
            return _run_snapshot(live)
        run = await self._store.get(request.run_id)
        if run is None:
            await context.abort(grpc.StatusCode.NOT_FOUND,
                                f"no run {quoted(request.run_id)}; run ids come from Solve's events")
        return run

    async def ListRuns(self, request: pb.ListRunsRequest, context) -> pb.ListRunsResponse:
        try:
            return await list_page(self._store, request)
        except ListRunsProblem as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))

    async def WatchRun(self, request: pb.WatchRunRequest, context):
        if not request.run_id:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "run_id is required")
        if run_id_problem(request.run_id):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, run_id_problem(request.run_id))
        live = self._live.get(request.run_id)
        if live is None:
            run = await self._store.get(request.run_id)
            if run is None:
                await context.abort(grpc.StatusCode.NOT_FOUND,
                                    f"no run {quoted(request.run_id)}; run ids come from Solve's events")
            if run.status == pb.RUN_STATUS_RUNNING:
                await context.abort(
                    grpc.StatusCode.FAILED_PRECONDITION,
                    f"run {quoted(request.run_id)} is executing on planner {run.owner} at "
                    f"{run.owner_address or 'an unknown address'}; watch it there "
                    "(GetRun answers from any planner)")
            yield pb.RunUpdate(snapshot=run)
            return
        if self._watchers >= self._settings.max_watchers:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"{self._settings.max_watchers} watchers are following runs on "
                                "this planner; retry later")
        watcher = live.feed.subscribe()          # with the snapshot: no event lost or repeated
        snapshot = _run_snapshot(live)
        self._watchers += 1
        WATCHERS.inc()
        try:
            yield pb.RunUpdate(snapshot=snapshot)
            while (event := await watcher.next()) is not None:
                yield pb.RunUpdate(event=event)
        except WatcherFellBehind as exc:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"this watcher {exc}; watch again for a fresh snapshot")
        finally:
            live.feed.unsubscribe(watcher)
            self._watchers -= 1
            WATCHERS.dec()

    async def _validate(self, request: pb.SolveRequest, context) -> TaskRef:
        if not request.env_address:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                "env_address is required (host:port of an Environment server)")
        which = request.WhichOneof("task")
        if which is None or (which == "task_id" and not request.task_id):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                "set task_id (see the environment's ListTasks) or inline_task")
        problem = request_problem(request)
        if problem:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, problem)
        if request.run_id and (request.run_id in self._live or await self._store.get(request.run_id)):
            await context.abort(grpc.StatusCode.ALREADY_EXISTS,
                                f"run {quoted(request.run_id)} exists; leave run_id empty for a fresh one")
        return TaskRef(task_id=request.task_id,
                       inline_task=request.inline_task if which == "inline_task" else None,
                       seed=request.config.seed)

    async def Solve(self, request: pb.SolveRequest, context):
        task = await self._validate(request, context)
        if self._slots.locked():
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"{self._settings.max_concurrent_runs} searches are running; "
                                "retry later or raise --max-runs")
        if self._shutting_down:
            await context.abort(grpc.StatusCode.UNAVAILABLE,
                                "this planner is shutting down; retry on another replica")
        async with self._slots:
            try:
                env = self._connect(request.env_address)
            except ValueError as exc:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"env_address: {exc}")
            try:
                async for event in self._solve(request, task, env, context):
                    yield event
            finally:
                await env.aclose()

    async def _gateway_max_samples(self, context) -> int:
        """The gateway's published samples-per-call limit (0 if it states none).

        Fails fast: when no gateway answers DescribeBackend within
        `gateway_check_seconds`, the Solve ends UNAVAILABLE naming the gateway and
        its address, before a run starts that could make no model call. (The
        model calls of a search keep the gateway client's longer retry window.)
        """
        seconds = self._settings.gateway_check_seconds
        try:
            return (await self._gateway.describe_backend(within=seconds)).max_samples
        except grpc.aio.AioRpcError as exc:
            if exc.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                await context.abort(
                    grpc.StatusCode.UNAVAILABLE,
                    f"no LLM gateway answered within {seconds:g}s ({exc.details()}); start "
                    "the gateway, or point the planner's --gateway at a running one")
            log.info("gateway limits unknown (%s); not checking sample counts up front",
                     exc.details())
            return 0

    def _connect(self, address: str) -> Environment:
        return connect_environment(address, timeout=self._settings.env_timeout)

    async def _solve(self, request, task: TaskRef, env: Environment, context):
        max_samples = await self._gateway_max_samples(context)   # no gateway: fail fast
        try:
            description = await env.describe()
        except grpc.aio.AioRpcError as exc:
            if exc.code() == grpc.StatusCode.FAILED_PRECONDITION:   # another protocol version
                await context.abort(grpc.StatusCode.FAILED_PRECONDITION, exc.details())
            await context.abort(grpc.StatusCode.UNAVAILABLE,
                                f"cannot reach the environment: {exc.details()}")
        try:
            method = resolve_method(request.config)
            config = effective_config(request.config, description.prompt_pack.search_hints,
                                      description.prompt_pack.paper_search_hints)
        except ConfigError as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        if method.complete_answers_only and not (
                description.facts.complete_answer_actions
                or description.prompt_pack.search_hints.reflect_each_failure):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                f"method {method.name} samples whole answers, but in "
                                f"{description.name} an action is one step of an answer "
                                "(facts.complete_answer_actions is false); use react_bok")
        problem = sampling_problem(config, max_samples)
        if problem:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, problem)

        run_id = request.run_id or uuid.uuid4().hex
        enter_run(run_id)        # log lines and calls to other services name the run
        config_message = to_proto(config, request.config)
        environment = f"{description.name}@{description.version}"
        run = pb.Run(run_id=run_id, status=pb.RUN_STATUS_RUNNING, created_at=_now(),
                     task_id=task.task_id, owner=self.owner,
                     owner_address=self._settings.address)
        run.result.environment = environment
        run.result.method = config_message.method
        run.result.config.CopyFrom(config_message)
        run.result.reward_mode = description.reward_mode
        run.result.second_term = second_term(config)
        live = LiveRun(run=run, calls=CallLog(description.prompt_pack.action_prefix_pattern))
        queue: asyncio.Queue = asyncio.Queue()
        sink = QueueSink(live, queue, config=config_message, environment=environment,
                         reward_mode=description.reward_mode,
                         second_term=run.result.second_term)
        budget = request.config.budget
        model = GatewayModel(self._gateway, run_id, request.config.model,
                             RunBudget(budget.max_calls, budget.max_total_tokens),
                             record=live.calls.record)
        fallback_env = None
        if request.config.fallback_env_address:
            fallback_env = self._connect(request.config.fallback_env_address)
        search = method.search(env, description, model, config, task, sink, fallback_env)
        live.search = search
        self._live[run_id] = live
        await self._store.put(run)
        log.info("run %s started: %s task %s, method %s (n=%d k=%d d=%d)", run_id, environment,
                 task.task_id or "(inline)", config_message.method, config.n_samples,
                 config.iterations, config.max_depth)
        SEARCHES_IN_FLIGHT.labels(config_message.method).inc()
        began = time.monotonic()

        search_task = asyncio.create_task(search.run())
        search_task.add_done_callback(lambda _: queue.put_nowait(None))
        try:
            while (event := await queue.get()) is not None:
                yield event
            try:
                outcome = search_task.result()
                error = ""
            except Exception as exc:  # environment or gateway failure
                log.warning("run %s failed: %s", run_id, exc)
                outcome, error = search.partial_outcome("error"), _describe_error(exc)
            result = self._result(outcome, error, search, model, config_message,
                                  description, environment, run.task_id)
            result.second_term = run.result.second_term
            run.status = result.status
            run.result.CopyFrom(result)
            sink.emit(finished=result)
            yield queue.get_nowait()
        finally:
            if not search_task.done():
                search_task.cancel()
                if self._shutting_down:
                    interrupted(run, f"planner {self.owner} shut down during the search")
                else:
                    run.status = pb.RUN_STATUS_ERROR
                    run.result.error = "the client cancelled the search"
            if fallback_env is not None:
                await fallback_env.aclose()
            stored = None
            write = asyncio.ensure_future(self._store_final(run_id, live))
            self._final_writes.add(write)
            write.add_done_callback(self._final_writes.discard)
            try:
                # shielded: a handler cancelled again (the server stopping) still stores
                stored = await asyncio.shield(write)
            finally:
                live.feed.close()
                self._count_finished(stored or run, time.monotonic() - began)

    @staticmethod
    def _count_finished(run: pb.Run, seconds: float) -> None:
        method = run.result.method or "lats"
        status = pb.RunStatus.Name(run.status).removeprefix("RUN_STATUS_").lower()
        SEARCHES_IN_FLIGHT.labels(method).dec()
        SEARCHES.labels(method, status).inc()
        SEARCH_SECONDS.labels(method).observe(seconds)
        SEARCH_NODES.labels(method).inc(len(run.nodes))
        usage = run.result.usage
        log.info("run %s %s after %d iterations, %d nodes, %d model calls (%d tokens), %.1fs%s",
                 run.run_id, status, run.result.iterations, len(run.nodes), usage.calls,
                 usage.prompt_tokens + usage.completion_tokens, seconds,
                 f": {run.result.error}" if run.result.error else "")

    @staticmethod
    def _result(outcome: SearchOutcome, error: str, search: Search, model: GatewayModel,
                config_message, description, environment: str, task_id: str) -> pb.RunResult:
        result = pb.RunResult(
            status=_STATUS.get(outcome.status, pb.RUN_STATUS_ERROR),
            iterations=outcome.iterations, nodes_expanded=search.nodes_expanded,
            nodes=sum(1 for _ in search.root.walk()) if search.root else 0,
            wall_seconds=outcome.wall_seconds, error=error, stop_reason=outcome.reason,
            method=config_message.method,
            reward_mode=description.reward_mode, model=model.model_name,
            config=config_message, environment=environment, task_id=task_id,
        )
        result.model_seconds = model.busy.seconds
        result.usage.calls = model.usage.calls
        result.usage.prompt_tokens = model.usage.prompt_tokens
        result.usage.completion_tokens = model.usage.completion_tokens
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


def _describe_error(exc: BaseException) -> str:
    if isinstance(exc, grpc.aio.AioRpcError):
        return f"{exc.code().name}: {exc.details()}"
    return f"{type(exc).__name__}: {exc}"
