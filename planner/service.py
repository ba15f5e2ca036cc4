"""The Planner gRPC service: Solve streams a search as it grows; GetRun reads runs.

Solve validates the request, describes the environment, runs the requested
search method (planner.methods: LATS by default, its ablations and the
baselines) with every model call going through the LLM gateway, and streams
SearchEvents; the last event is always `finished` (with status ERROR and a
message naming the failed service if the search failed on an environment or
gateway error). If the client cancels, the search stops. The servicer admits
the request and maps answers to gRPC; a run's lifecycle (prepare, start,
stream, finish) is planner.solve_run's `SolveRun`.

Replicas: runs live in a RunStore that every planner replica may share
(planner.runs), so any replica answers GetRun and ListRuns for any run. Beside each run the
store keeps its expansion calls (prompts and completions, planner.call_log)
for `lats runs export --format trl`; they are written with the tree. This replica owns
the runs it executes (planner.live_runs): a lease keeper renews their heartbeat
and stores their growing tree every `heartbeat_seconds`, and marks INTERRUPTED
any run whose planner stopped renewing. On shutdown the runs still going are
stored INTERRUPTED. Environment and gateway addresses may name several replicas;
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

import grpc

from lats_pb import planner_pb2 as pb
from lats_pb import planner_pb2_grpc as pb_grpc
from lats_runtime.quoting import quoted
from lats_runtime.run_context import run_id_problem
from lats_runtime.run_status import RunStatus, from_wire

from planner.environment import Environment, TaskRef
from planner.feed import WatcherFellBehind
from planner.live_runs import LiveRuns, run_snapshot
from planner.metrics import WATCHERS
from planner.replica import PlannerSettings, Replica
from planner.request_checks import request_problem
from planner.run_listing import ListRunsProblem, list_page
from planner.runs import RunStore
from planner.solve_run import (InvalidSolve, OtherProtocol, Refused, ServiceMissing, SolveRun,
                               UnknownTask)

# How gRPC says why a run could not start.
_REFUSALS = {InvalidSolve: grpc.StatusCode.INVALID_ARGUMENT,
             ServiceMissing: grpc.StatusCode.UNAVAILABLE,
             OtherProtocol: grpc.StatusCode.FAILED_PRECONDITION,
             UnknownTask: grpc.StatusCode.NOT_FOUND}


class PlannerServicer(pb_grpc.PlannerServicer):
    """The Planner service: admits requests, asks a run's lifecycle (SolveRun) or the
    replica's live runs and the store, and says the answers in gRPC's terms."""

    def __init__(self, gateway, store: RunStore, settings: PlannerSettings | None = None):
        settings = settings or PlannerSettings()
        self._settings = settings
        self._runs = LiveRuns(store, settings.owner, settings.lease)
        self._replica = Replica(settings, gateway, self._runs)
        self._slots = asyncio.Semaphore(settings.max_concurrent_runs)
        self._watchers = 0

    @property
    def owner(self) -> str:
        return self._settings.owner

    def advertise(self, address: str) -> None:
        """The host:port runs record as where this planner answers WatchRun."""
        self._settings.address = address

    # ------------------------------------------------- the replica's start and stop
    async def start(self) -> None:
        """Sweeps lapsed runs once, then keeps leases in the background."""
        await self._runs.start()

    def begin_shutdown(self) -> None:
        """From now on, a search cut short is INTERRUPTED, not an error."""
        self._runs.closing = True

    async def stop(self) -> None:
        """Stops the lease keeper and stores every run still going as INTERRUPTED."""
        await self._runs.stop()

    async def GetRun(self, request: pb.GetRunRequest, context) -> pb.Run:
        if not request.run_id:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "run_id is required")
        if run_id_problem(request.run_id):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, run_id_problem(request.run_id))
        live = self._runs.get(request.run_id)
        if live is not None:
            return run_snapshot(live)
        run = await self._runs.store.get(request.run_id)
        if run is None:
            await context.abort(grpc.StatusCode.NOT_FOUND,
                                f"no run {quoted(request.run_id)}; run ids come from Solve's events")
        return run

    async def ListRuns(self, request: pb.ListRunsRequest, context) -> pb.ListRunsResponse:
        try:
            return await list_page(self._runs.store, request)
        except ListRunsProblem as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))

    async def WatchRun(self, request: pb.WatchRunRequest, context):
        if not request.run_id:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "run_id is required")
        if run_id_problem(request.run_id):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, run_id_problem(request.run_id))
        live = self._runs.get(request.run_id)
        if live is None:
            run = await self._runs.store.get(request.run_id)
            if run is None:
                await context.abort(grpc.StatusCode.NOT_FOUND,
                                    f"no run {quoted(request.run_id)}; run ids come from Solve's events")
            if from_wire(run.status) is RunStatus.RUNNING:
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
        snapshot = run_snapshot(live)
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

    async def Solve(self, request: pb.SolveRequest, context):
        task = await self._admit(request, context)
        async with self._slots:
            try:
                env = self._replica.connect(request.env_address)
            except ValueError as exc:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"env_address: {exc}")
            try:
                run = await self._prepare(request, task, env, context)
                await run.start()
                try:
                    async for event in run.stream():
                        yield event
                finally:
                    await run.finish()
            finally:
                await env.aclose()

    async def _admit(self, request: pb.SolveRequest, context) -> TaskRef:
        """The request's task, once the request is whole and this planner can take it."""
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
        if request.run_id and await self._runs.taken(request.run_id):
            await context.abort(grpc.StatusCode.ALREADY_EXISTS,
                                f"run {quoted(request.run_id)} exists; leave run_id empty for a fresh one")
        if self._slots.locked():
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"{self._settings.max_concurrent_runs} searches are running; "
                                "retry later or raise --max-runs")
        if self._runs.closing:
            await context.abort(grpc.StatusCode.UNAVAILABLE,
                                "this planner is shutting down; retry on another replica")
        return TaskRef(task_id=request.task_id,
                       inline_task=request.inline_task if which == "inline_task" else None,
                       seed=request.config.seed)

    async def _prepare(self, request: pb.SolveRequest, task: TaskRef, env: Environment,
                       context) -> SolveRun:
        """The prepared run; a refusal ends the Solve with its gRPC status."""
        try:
            return await SolveRun.prepare(self._replica, request, task, env)
        except Refused as exc:
            await context.abort(_REFUSALS[type(exc)], str(exc))
