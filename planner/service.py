"""The Planner gRPC service: Solve streams a search as it grows; GetRun reads runs.

Solve validates the request, describes the environment, runs the requested
search method (planner.methods: LATS by default, its ablations and the
baselines) with every model call going through the LLM gateway, and streams
SearchEvents; the last event is always `finished` (with status ERROR and a
message if the search failed on an environment or gateway error). Runs are
stored in the RunStore when they start and when they end. If the client
cancels, the search stops.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

import grpc

from lats_pb import planner_pb2 as pb
from lats_pb import planner_pb2_grpc as pb_grpc

from planner.config import ConfigError, effective_config, resolve_method, to_proto
from planner.convert import node_message
from planner.environment_client import EnvironmentClient, TaskRef
from planner.events import EventSink
from planner.lats import LatsSearch, SearchOutcome
from planner.model_client import GatewayModel
from planner.run_store import RunStore
from planner.tree import Node

log = logging.getLogger(__name__)

_STATUS = {"solved": pb.RUN_STATUS_SOLVED, "failed": pb.RUN_STATUS_FAILED}


class QueueSink(EventSink):
    """Turns search callbacks into numbered SearchEvent messages on a queue."""

    def __init__(self, run_id: str, queue: asyncio.Queue):
        self.run_id = run_id
        self.queue = queue
        self.seq = 0

    def emit(self, **event) -> None:
        self.seq += 1
        self.queue.put_nowait(pb.SearchEvent(run_id=self.run_id, seq=self.seq, **event))

    def started(self, task_id: str, task: str) -> None:
        self.emit(started=pb.RunStarted(task_id=task_id, task=task))

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
        self.emit(reflection=pb.ReflectionAdded(node_id=node.id, text=text))

    def backpropagated(self, leaf: Node, reward: float, path: Sequence[Node]) -> None:
        self.emit(backpropagated=pb.Backpropagated(
            leaf_id=leaf.id, reward=reward, path=[node_message(n) for n in path]))


@dataclass
class PlannerSettings:
    env_timeout: float = 120.0
    max_concurrent_runs: int = 8


@dataclass
class LiveRun:
    run: pb.Run
    search: LatsSearch | None = None


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
        self._gateway = gateway  # llm_gateway.client.GatewayClient
        self._store = store
        self._settings = settings or PlannerSettings()
        self._slots = asyncio.Semaphore(self._settings.max_concurrent_runs)
        self._live: dict[str, LiveRun] = {}

    async def GetRun(self, request: pb.GetRunRequest, context) -> pb.Run:
        if not request.run_id:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "run_id is required")
        live = self._live.get(request.run_id)
        if live is not None:
            return _run_snapshot(live)
        run = await self._store.get(request.run_id)
        if run is None:
            await context.abort(grpc.StatusCode.NOT_FOUND,
                                f"no run {request.run_id!r}; run ids come from Solve's events")
        return run

    async def _validate(self, request: pb.SolveRequest, context) -> TaskRef:
        if not request.env_address:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                "env_address is required (host:port of an Environment server)")
        which = request.WhichOneof("task")
        if which is None or (which == "task_id" and not request.task_id):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                "set task_id (see the environment's ListTasks) or inline_task")
        if request.run_id and (request.run_id in self._live or await self._store.get(request.run_id)):
            await context.abort(grpc.StatusCode.ALREADY_EXISTS,
                                f"run {request.run_id!r} exists; leave run_id empty for a fresh one")
        return TaskRef(task_id=request.task_id,
                       inline_task=request.inline_task if which == "inline_task" else None,
                       seed=request.config.seed)

    async def Solve(self, request: pb.SolveRequest, context):
        task = await self._validate(request, context)
        if self._slots.locked():
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"{self._settings.max_concurrent_runs} searches are running; "
                                "retry later or raise --max-runs")
        async with self._slots:
            env = EnvironmentClient(request.env_address, timeout=self._settings.env_timeout)
            try:
                async for event in self._solve(request, task, env, context):
                    yield event
            finally:
                await env.aclose()

    async def _solve(self, request, task: TaskRef, env: EnvironmentClient, context):
        try:
            description = await env.describe()
        except grpc.aio.AioRpcError as exc:
            await context.abort(grpc.StatusCode.UNAVAILABLE,
                                f"cannot reach the environment at {request.env_address}: "
                                f"{exc.code().name} {exc.details()}")
        try:
            method = resolve_method(request.config)
            config = effective_config(request.config, description.prompt_pack.search_hints)
        except ConfigError as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))

        run_id = request.run_id or uuid.uuid4().hex
        config_message = to_proto(config, request.config)
        environment = f"{description.name}@{description.version}"
        run = pb.Run(run_id=run_id, status=pb.RUN_STATUS_RUNNING, created_at=_now(),
                     task_id=task.task_id)
        queue: asyncio.Queue = asyncio.Queue()
        sink = QueueSink(run_id, queue)
        budget = request.config.budget if request.config.HasField("budget") else None
        model = GatewayModel(self._gateway, run_id, request.config.model, budget)
        search = method.search(env, description, model, config, task, sink)
        fallback_env = None
        if request.config.fallback_env_address:
            fallback_env = EnvironmentClient(request.config.fallback_env_address,
                                             timeout=self._settings.env_timeout)
            search.fallback_env = fallback_env
        live = LiveRun(run=run, search=search)
        self._live[run_id] = live
        await self._store.put(run)

        search_task = asyncio.create_task(search.run())
        search_task.add_done_callback(lambda _: queue.put_nowait(None))
        try:
            while (event := await queue.get()) is not None:
                if event.HasField("started"):
                    event.started.config.CopyFrom(config_message)
                    event.started.environment = environment
                    event.started.reward_mode = description.reward_mode
                    run.task_id = event.started.task_id
                yield event
            try:
                outcome = search_task.result()
                error = ""
            except Exception as exc:  # environment or gateway failure
                log.warning("run %s failed: %s", run_id, exc)
                outcome, error = SearchOutcome(status="error", answer=None), _describe_error(exc)
            result = self._result(outcome, error, search, model, config_message,
                                  description, environment, run.task_id)
            run.status = result.status
            run.result.CopyFrom(result)
            sink.emit(finished=result)
            yield queue.get_nowait()
        finally:
            if not search_task.done():
                search_task.cancel()
                run.status = pb.RUN_STATUS_ERROR
                run.result.error = "the client cancelled the search"
            if fallback_env is not None:
                await fallback_env.aclose()
            stored = _run_snapshot(live)
            self._live.pop(run_id, None)
            await self._store.put(stored)

    @staticmethod
    def _result(outcome: SearchOutcome, error: str, search: LatsSearch, model: GatewayModel,
                config_message, description, environment: str, task_id: str) -> pb.RunResult:
        result = pb.RunResult(
            status=_STATUS.get(outcome.status, pb.RUN_STATUS_ERROR),
            iterations=outcome.iterations, nodes_expanded=search.nodes_expanded,
            nodes=sum(1 for _ in search.root.walk()) if search.root else 0,
            wall_seconds=outcome.wall_seconds, error=error, stop_reason=outcome.reason,
            method=config_message.method,
            reward_mode=description.reward_mode or "none", model=model.model_name,
            config=config_message, environment=environment, task_id=task_id,
        )
        result.model_seconds = model.busy.seconds
        result.usage.calls = model.usage.calls
        result.usage.prompt_tokens = model.usage.prompt_tokens
        result.usage.completion_tokens = model.usage.completion_tokens
        if outcome.answer is not None:
            result.actions.extend(n.action for n in outcome.answer.trajectory())
            result.final_observation = outcome.answer.observation
            result.reward = outcome.answer.reward
        if outcome.score is not None:
            result.score.CopyFrom(outcome.score)
            result.scored = True
        return result


def _describe_error(exc: BaseException) -> str:
    if isinstance(exc, grpc.aio.AioRpcError):
        return f"{exc.code().name}: {exc.details()}"
    return f"{type(exc).__name__}: {exc}"
