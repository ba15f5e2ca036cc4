"""In-process stand-ins for the search core's two dependencies.

`PathEnv` is a tiny environment whose state is the list of actions taken:
"win" ends with reward 1, "lose" ends with reward 0, "bad" is an invalid action,
anything else moves on. It records every session it creates so tests can check
that each branch ran in its own forked session.
`RuleModel` answers by calling a function of (purpose, prompt).
"""

from __future__ import annotations

import asyncio
import itertools
import json

from lats_pb import environment_pb2 as env_pb

from planner.environment_client import TaskRef
from planner.model_client import BudgetExhausted, ModelClient, SamplingParams


def pack(**overrides) -> env_pb.PromptPack:
    fields = dict(
        instructions="",
        act_template="ACT task={task} traj={trajectory} refl={reflections}",
        value_template="VALUE traj={trajectory}",
        reflect_template="REFLECT traj={trajectory} outcome={outcome}",
        step_template="[{action}]",
        reflection_template="<{reflection}>",
        value_pattern=r"score is\s*(\d+)",
        value_min=1, value_max=10,
    )
    fields.update(overrides)
    return env_pb.PromptPack(**fields)


def description(reward_mode: str = "none", **pack_overrides) -> env_pb.DescribeResponse:
    return env_pb.DescribeResponse(
        name="path", version="1", reward_mode=reward_mode,
        capabilities=env_pb.Capabilities(snapshot=True, score=True),
        reward_range=env_pb.RewardRange(min=0, max=1, success_threshold=1),
        prompt_pack=pack(**pack_overrides))


class PathEnv:
    def __init__(self, step_delay: float = 0.0):
        self.sessions: dict[str, list[str]] = {}
        self.closed: set[str] = set()
        self.step_log: list[tuple[str, tuple[str, ...], str]] = []  # (session, state before, action)
        self.step_delay = step_delay
        self.in_flight = 0
        self.max_in_flight = 0
        self._ids = itertools.count()
        self.description = description()
        self.scored: list[list[str]] = []

    supports_snapshot = True

    def _new(self, state: list[str]) -> str:
        sid = f"s{next(self._ids)}"
        self.sessions[sid] = list(state)
        return sid

    async def describe(self):
        return self.description

    async def reset(self, task: TaskRef):
        return env_pb.ResetResponse(session_id=self._new([]), observation="start", task_id="t")

    async def step(self, session_id: str, action: str):
        assert session_id not in self.closed, "stepped a closed session"
        state = self.sessions[session_id]
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        await asyncio.sleep(self.step_delay)
        self.in_flight -= 1
        self.step_log.append((session_id, tuple(state), action))
        if action == "bad":
            return env_pb.StepResponse(observation="Invalid action!", invalid_action=True)
        state.append(action)
        if action == "win":
            return env_pb.StepResponse(observation="won", reward=1, terminated=True)
        if action == "lose":
            return env_pb.StepResponse(observation="lost", reward=0, terminated=True)
        return env_pb.StepResponse(observation="at " + "/".join(state))

    async def snapshot(self, session_id: str) -> bytes:
        return json.dumps(self.sessions[session_id]).encode()

    async def restore(self, blob: bytes) -> str:
        return self._new(json.loads(blob))

    async def fork(self, blob, task, actions):
        return await self.restore(blob)

    async def close(self, session_id: str) -> None:
        self.closed.add(session_id)

    async def score_blob(self, blob: bytes):
        state = json.loads(blob)
        self.scored.append(state)
        won = bool(state) and state[-1] == "win"
        return env_pb.ScoreResponse(score=float(won), success=won)


class RuleModel(ModelClient):
    """answer(purpose, prompt, n) -> list of n texts."""

    def __init__(self, answer, max_calls: int | None = None):
        super().__init__()
        self.answer = answer
        self.prompts: list[tuple[str, str]] = []
        self.max_calls = max_calls

    async def complete(self, messages, params: SamplingParams):
        if self.max_calls is not None and self.usage.calls >= self.max_calls:
            raise BudgetExhausted(f"{self.max_calls} calls used")
        prompt = messages[-1][1]
        self.prompts.append((params.purpose, prompt))
        self.usage.add(1, len(prompt.split()), 1)
        texts = self.answer(params.purpose, prompt, params.n)
        assert len(texts) == params.n
        return texts
