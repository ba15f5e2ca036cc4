"""The OpenEnv action, observation and state of a served LATS environment.

Actions are text, exactly as in environment.proto. The observation carries the
environment's text and what Step answers besides (steps, truncated, invalid
action, info). The state is for the trainer, not the agent: the task, the
actions so far, the snapshot to come back to, and, once the episode has
ended, its Score against hidden ground truth.
"""

from __future__ import annotations

from typing import Any

from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field


class LatsAction(Action):
    text: str = Field(description="One action, as text (see the environment's README for its "
                                  "grammar and examples)")


class LatsObservation(Observation):
    text: str = Field(default="", description="What the environment shows after the action "
                                              "(the task itself after reset)")
    task_id: str = Field(default="", description="The task being played")
    steps: int = Field(default=0, description="Steps taken in this episode, invalid ones too")
    truncated: bool = Field(default=False, description="The step limit ended the episode")
    invalid_action: bool = Field(default=False, description="The action could not be parsed "
                                 "or applied; the state is unchanged")
    info: dict[str, Any] = Field(default_factory=dict, description="Extra facts of the step")


class LatsState(State):
    task_id: str = ""
    seed: int = 0
    actions: list[str] = Field(default_factory=list, description="Every action taken, in order")
    done: bool = False
    truncated: bool = False
    total_reward: float = 0.0
    snapshot: str = Field(default="", description="The state after the last step, base64: "
                          "pass it to reset(snapshot=...) on any replica (sharing the snapshot "
                          "key, where snapshots are signed blobs)")
    score: float | None = Field(default=None, description="Score against hidden ground truth, "
                                "once the episode has ended")
    success: bool | None = None
    score_details: str = ""
