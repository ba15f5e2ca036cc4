"""Helpers for running search methods in-process against tests.planner.fakes.

`CallModel` answers with `answer(purpose, prompt, params)` and records every
call with its sampling parameters, so tests can check seeds, temperatures and
which prompts (with which reflections) the model saw.
"""

from __future__ import annotations

import asyncio
import copy

from lats_pb import planner_pb2 as pb

from lats_pb import environment_pb2 as env_pb

from planner.config import effective_config
from planner.environment import Environment, EnvState, Started
from planner.environment_client import TaskRef
from planner.events import EventSink
from planner.methods import method_spec
from planner.model_client import BudgetExhausted, ModelClient, SamplingParams

from tests.planner.fakes import PathEnv, description

__all__ = ["CallModel", "PathEnv", "Recorder", "WholeProgramEnv", "description", "run_method",
           "traj"]


class CallModel(ModelClient):
    def __init__(self, answer, max_calls: int | None = None):
        super().__init__()
        self.answer = answer
        self.calls: list[tuple[str, str, SamplingParams]] = []
        self.max_calls = max_calls

    async def complete(self, messages, params: SamplingParams):
        if self.max_calls is not None and self.usage.calls >= self.max_calls:
            raise BudgetExhausted(f"{self.max_calls} calls used")
        prompt = messages[-1][1]
        self.calls.append((params.purpose, prompt, params))
        self.usage.add(1, len(prompt.split()), params.n)
        texts = self.answer(params.purpose, prompt, params)
        assert len(texts) == params.n
        return texts

    def purposes(self) -> list[str]:
        return [purpose for purpose, _, _ in self.calls]

    def prompts(self, purpose: str) -> list[str]:
        return [prompt for p, prompt, _ in self.calls if p == purpose]


class Recorder(EventSink):
    """Keeps (kind, args) of every event, with copies of the nodes."""

    KINDS = {"started", "iteration", "selected", "node_added", "node_evaluated", "terminal",
             "reflection", "backpropagated"}

    def __init__(self):
        self.events = []

    def __getattribute__(self, name):
        if name in Recorder.KINDS:
            return lambda *args: self.events.append((name, tuple(
                copy.copy(a) if hasattr(a, "visits") else a for a in args)))
        return object.__getattribute__(self, name)

    def of(self, kind):
        return [args for name, args in self.events if name == kind]


def run_method(method: str, env, model, desc=None, **request):
    """Runs `method` as the service would: effective config, then the search."""
    desc = desc or env.description
    config_request = pb.SearchConfig(method=method, **request)
    config = effective_config(config_request, desc.prompt_pack.search_hints)
    events = Recorder()
    search = method_spec(method).search(env, desc, model, config, TaskRef(task_id="t"), events)
    outcome = asyncio.run(asyncio.wait_for(search.run(), 10))
    return search, outcome, events


def traj(prompt: str) -> str:
    """The trajectory part of a tests.planner.fakes pack prompt."""
    return prompt.split("traj=")[1].split(" ")[0]


class WholeProgramEnv(Environment):
    """An environment whose every action is a whole program with answer keys (the
    code runner's shape): no simulation, a reflection per failed attempt, the step's
    reward in the value and no LM value unless `hints` say otherwise. Subclasses
    give `transition` and `score`."""

    def __init__(self, partial_credit: bool = False, **hints):
        desc = description(step_template="[{action}]")
        desc.facts.complete_answer_actions = True
        desc.facts.answer_keys = True
        desc.facts.partial_credit_rewards = partial_credit
        desc.prompt_pack.act_stop.append("]")
        desc.prompt_pack.search_hints.CopyFrom(env_pb.SearchHints(**{
            "simulate": False, "reflect_each_failure": True, "reward_in_value": True,
            "value_weight": 0.0, **hints}))
        self.description = desc

    async def describe(self):
        return self.description

    async def start(self, task: TaskRef) -> Started:
        return Started("write f", "t", EnvState(env_pb.Snapshot(blob=b"null")))
