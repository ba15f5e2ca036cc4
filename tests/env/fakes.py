"""Small fake domains that exercise the framework without Game-24 rules."""

from __future__ import annotations

import asyncio
import dataclasses
import time

from lats_pb import environment_pb2

from env_servers.core import (
    Domain,
    DomainDescription,
    InvalidRequest,
    ResetOutcome,
    ScoreResult,
    StepOutcome,
    TaskNotFound,
)

TASKS = [f"counter/{i}" for i in range(250)]


def _pack() -> environment_pb2.PromptPack:
    return environment_pb2.PromptPack(
        instructions="Count.", act_template="{task}\n{trajectory}Step {step}:",
        value_template="{task}\n{trajectory}score", reflect_template="{outcome}",
        step_template="{action} -> {observation}\n", value_pattern=r"(\d+)",
        value_min=0, value_max=10,
    )


class CounterDomain(Domain):
    """Actions: "inc" adds one, "end" terminates; anything else is invalid.

    The async step sleeps `delay` seconds (so concurrent steps overlap) and
    an invalid action returns a corrupted state, which the servicer must drop.
    """

    name = "counter"
    version = "0.1.0"
    description = "A counter for framework tests."

    def __init__(self, delay: float = 0.0, max_steps: int = 5):
        self.delay = delay
        self.max_steps = max_steps
        self.closed = False

    def describe(self) -> DomainDescription:
        return DomainDescription(
            capabilities=environment_pb2.Capabilities(inline_tasks=False, score=True),
            action_grammar=environment_pb2.ActionGrammar(
                description="inc or end", examples=["inc", "end"]),
            reward_range=environment_pb2.RewardRange(min=0, max=1, success_threshold=1),
            prompt_pack=_pack(),
            splits=("all",),
            reward_mode="none",
            max_steps=self.max_steps,
            max_action_bytes=64,
        )

    def list_tasks(self, split):
        if split != "all":
            raise InvalidRequest(f"unknown split {split!r}")
        return TASKS

    def reset(self, task, seed, options):
        if task not in TASKS:
            raise TaskNotFound(f"unknown task {task!r}")
        return ResetOutcome({"count": 0, "observation": "count 0"}, "count 0", task,
                            info={"seed": seed})

    async def step(self, state, action):
        count = state["count"]
        if self.delay:
            await asyncio.sleep(self.delay)
        if action == "inc":
            observation = f"count {count + 1}"
            return StepOutcome({"count": count + 1, "observation": observation}, observation,
                               info={"count": count + 1})
        if action == "end":
            return StepOutcome(dict(state), "ended", reward=1.0, terminated=True)
        return StepOutcome({"count": -1, "observation": "corrupted"},
                           f"Invalid action: {action!r} is not inc or end.", invalid_action=True)

    def score(self, state):
        return ScoreResult(float(state["count"]), state["count"] > 0, {"count": state["count"]})

    def close(self):
        self.closed = True


class BlockingCounterDomain(CounterDomain):
    """A counter whose sync step blocks (time.sleep): must run off the event loop."""

    offload_sync_calls = True

    def step(self, state, action):  # type: ignore[override]
        time.sleep(self.delay)
        return StepOutcome({"count": state["count"] + 1, "observation": "slow"}, "slow")


class ReplayCounterDomain(CounterDomain):
    """A counter whose states are named by replay, not signed into blobs."""

    name = "counter-replay"

    def describe(self) -> DomainDescription:
        return dataclasses.replace(super().describe(), blob_snapshots=False)
