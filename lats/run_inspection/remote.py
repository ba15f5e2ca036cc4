"""Stored runs read through a planner (ListRuns, GetRun) instead of its database.

`PlannerRuns(address)` offers the reading half of planner.runs.RunStore
(`list_runs`, `get`, `facets`, `close`) over the Python client, so `lats runs
--planner ADDR` and `lats serve ui --planner ADDR` work from any machine that
reaches a planner, without the database's credentials. Runs come back as the
planner's messages, which the tables, trees and JSON exports render.
"""

from __future__ import annotations

from lats_pb import planner_pb2 as pb
from lats_runtime.run_status import from_wire

from lats_client import AsyncPlanner, RunNotFound
from planner.runs import RunQuery


class PlannerRuns:
    """The runs a planner (any replica) answers for, read like a run store."""

    def __init__(self, address: str):
        self.location = f"the planner at {address}"
        self.address = address
        self._planner = AsyncPlanner(address)

    async def open(self) -> None:
        """Checks that a planner answers ListRuns (a LatsError naming it otherwise)."""
        await self._planner.runs_page(page_size=1)

    async def list_runs(self, query: RunQuery) -> list[pb.Run]:
        runs = await self._planner.runs(
            limit=query.limit, offset=query.offset, environment=query.environment,
            method=query.method, status=[from_wire(s) for s in query.statuses],
            model=query.model, task=query.task, run_id_prefix=query.run_id_prefix)
        return [run.message for run in runs]

    async def get(self, run_id: str) -> pb.Run | None:
        try:
            return (await self._planner.run(run_id)).message
        except RunNotFound:
            return None

    async def facets(self) -> dict[str, list[str]]:
        facets = await self._planner.facets()
        return {"environment": list(facets.environments), "method": list(facets.methods),
                "model": list(facets.models)}

    async def calls(self, run_id: str) -> list[pb.ModelCall]:
        raise NotImplementedError("a planner does not serve a run's model calls; export "
                                  "training data from the run store itself (--db)")

    async def close(self) -> None:
        await self._planner.close()
