"""In-process stand-ins for the search core's two dependencies.

`PathEnv` is a tiny environment whose state is the list of actions taken:
"win" ends with reward 1, "lose" ends with reward 0, "bad" is an invalid action,
anything else moves on. It records every action it applies, with the call and
the state it was applied to, so tests can check how branches were stepped.
`RuleModel` answers by calling a function of (purpose, prompt).
"""

from __future__ import annotations

import asyncio
import json

from lats_pb import environment_pb2 as env_pb
from lats_runtime.reward_modes import to_wire

from planner.environment import Environment, EnvState, Started, Stepped, TaskRef
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
        name="path", version="1", reward_mode=to_wire(reward_mode),
        capabilities=env_pb.Capabilities(score=True),
        reward_range=env_pb.RewardRange(min=0, max=1, success_threshold=1),
        prompt_pack=pack(**pack_overrides))


class PathEnv(Environment):
    def __init__(self, step_delay: float = 0.0):
        self.transitions = 0                 # Step calls made
        self.step_log: list[tuple[int, tuple[str, ...], str]] = []  # (call, state before, action)
        self.step_delay = step_delay
        self.in_flight = 0
        self.max_in_flight = 0
        self.description = description()
        self.scored: list[list[str]] = []

    async def describe(self):
        return self.description

    async def start(self, task: TaskRef) -> Started:
        return Started("start", "t", EnvState(env_pb.Snapshot(blob=b"[]")))

    async def transition(self, state: EnvState, actions) -> list[Stepped]:
        self.transitions += 1
        call, before = self.transitions, tuple(json.loads(state.snapshot.blob))
        return list(await asyncio.gather(*(self._step(call, before, a) for a in actions)))

    async def _step(self, call: int, before: tuple[str, ...], action: str) -> Stepped:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        await asyncio.sleep(self.step_delay)
        self.in_flight -= 1
        self.step_log.append((call, before, action))
        if action == "bad":
            return _stepped("Invalid action!", before, invalid=True)
        after = (*before, action)
        if action == "win":
            return _stepped("won", after, reward=1.0, terminated=True)
        if action == "lose":
            return _stepped("lost", after, terminated=True)
        return _stepped("at " + "/".join(after), after)

    async def score(self, state: EnvState):
        path = json.loads(state.snapshot.blob)
        self.scored.append(path)
        won = bool(path) and path[-1] == "win"
        return env_pb.ScoreResponse(score=float(won), success=won)


def _stepped(observation: str, path, reward: float = 0.0, terminated: bool = False,
             invalid: bool = False) -> Stepped:
    return Stepped(observation, reward, terminated, False, invalid,
                   EnvState(env_pb.Snapshot(blob=json.dumps(list(path)).encode())))


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
