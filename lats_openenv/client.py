"""A typed OpenEnv client for a served LATS environment (OpenEnv's `EnvClient`).

    from lats_openenv import LatsAction, LatsEnv

    with LatsEnv(base_url="http://127.0.0.1:8000").sync() as env:
        result = env.reset(task_id="game24/900")
        result = env.step(LatsAction(text="4 + 5 = 9 (left: 6 9 10)"))
        saved = env.state().snapshot          # come back here later, on any replica

OpenEnv's untyped `GenericEnvClient` works as well (actions as {"text": ...}).
This module imports no server code (see the package docstring).
"""

from __future__ import annotations

from typing import Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient

from lats_openenv.models import LatsAction, LatsObservation, LatsState


class LatsEnv(EnvClient[LatsAction, LatsObservation, LatsState]):
    def _step_payload(self, action: LatsAction) -> dict[str, Any]:
        return {"text": action.text}

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[LatsObservation]:
        observation = LatsObservation(**payload.get("observation", {}),
                                      reward=payload.get("reward"),
                                      done=payload.get("done", False))
        return StepResult(observation=observation, reward=payload.get("reward"),
                          done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> LatsState:
        return LatsState(**payload)
