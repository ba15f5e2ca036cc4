"""A served LATS environment as an OpenEnv `Environment` (one per OpenEnv session).

Each OpenEnv session gets a `LatsOpenEnvironment`; all of them share one
`ServedDomain`, which runs the domain under our own servicer in process
(env_servers.openenv_app.calls). An episode is held as its latest step result
(environment.proto StepResult: the observation and the snapshot, a signed blob
or a replay) and its history (the reset, the actions since, the reward so far),
so the OpenEnv session holds no other state, and:

  reset(task_id=..., seed=..., options={...})   start a task (without a task_id,
                                               the seed picks one: tasks[seed % n];
                                               without either, the tasks in turn)
  reset(snapshot=BASE64)                        continue from state().snapshot, on
                                               this or any replica (sharing the key,
                                               for signed blobs)
  reset(task_id=..., actions=[...])             re-play a state (any domain)
  step(LatsAction(text=...))                    one action, as Step answers it
  state                                         task, actions, snapshot, and Score
                                               once the episode has ended

`state().snapshot` is that latest StepResult with the history, as text
(env_servers.openenv_app.saved_state): its snapshot is verified by the servicer
on `reset(snapshot=...)` (a damaged or foreign one is refused), its observation
and info are what the session shows again, and its actions, step count and
reward so far carry on.

Score (hidden ground truth) is never in an observation: only `state` carries
it, after the episode has ended, for the trainer that asks.
"""

from __future__ import annotations

import itertools
import uuid
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import json_format
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import EnvironmentMetadata

from lats_openenv.models import LatsAction, LatsObservation, LatsState
from lats_pb import environment_pb2
from lats_runtime.reward_modes import name_of

from env_servers.core.domain import Domain
from env_servers.core.errors import EnvError
from env_servers.core.server import wait_until_ready
from env_servers.core.servicer import EnvironmentServicer
from env_servers.core.settings import EnvSettings
from env_servers.openenv_app import saved_state
from env_servers.openenv_app.calls import InProcessEnvironment

RESET_ARGUMENTS = ("seed", "episode_id", "task_id", "options", "snapshot", "actions")
MAX_LISTED_TASKS = 1_000_000


class ServedDomain:
    """One domain under our servicer, shared by every OpenEnv session of the app."""

    def __init__(self, domain: Domain, settings: EnvSettings):
        self.domain = domain
        self.servicer = EnvironmentServicer(domain, settings)
        self.calls = InProcessEnvironment(self.servicer)
        self.description: environment_pb2.DescribeResponse | None = None
        self.task_ids: list[str] = []
        self._turns = itertools.count()

    async def start(self) -> None:
        """Waits for the domain, reads Describe and the tasks."""
        await wait_until_ready(self.domain)
        self.description = await self.calls.call("Describe", environment_pb2.DescribeRequest())
        token = ""
        while len(self.task_ids) < MAX_LISTED_TASKS:
            page = await self.calls.call("ListTasks", environment_pb2.ListTasksRequest(
                page_size=1000, page_token=token))
            self.task_ids.extend(page.task_ids)
            token = page.next_page_token
            if not token:
                break

    async def close(self) -> None:
        await self.servicer.close()

    def task_for(self, task_id: str | None, seed: int | None) -> str:
        if task_id:
            return task_id
        if not self.task_ids:
            raise ValueError("the environment lists no tasks: name one with reset(task_id=...)")
        turn = next(self._turns) if seed is None else seed
        return self.task_ids[turn % len(self.task_ids)]

    def metadata(self) -> EnvironmentMetadata:
        d = self.description
        return EnvironmentMetadata(
            name=d.name, version=d.version, description=d.description,
            author="LATS platform", readme_content=readme(d, len(self.task_ids)))


@dataclass
class Episode:
    reset: environment_pb2.ResetRequest
    task_id: str
    last: environment_pb2.StepResult                     # the latest result, with its snapshot
    actions: list[str] = field(default_factory=list)     # actions in this OpenEnv episode
    steps: int = 0
    done: bool = False
    truncated: bool = False
    total_reward: float = 0.0
    score: environment_pb2.ScoreResponse | None = None
    episode_id: str = field(default_factory=lambda: str(uuid.uuid4()))


class LatsOpenEnvironment(Environment[LatsAction, LatsObservation, LatsState]):
    """One OpenEnv session on a `ServedDomain` (see the module docstring)."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, served: ServedDomain):
        super().__init__()
        self._served = served
        self._episode: Episode | None = None

    # ----------------------------------------------------------- OpenEnv API
    def reset(self, seed=None, episode_id=None, **kwargs) -> LatsObservation:
        raise RuntimeError("this environment is asynchronous: OpenEnv's server calls "
                           "reset_async")

    def step(self, action, timeout_s=None, **kwargs) -> LatsObservation:
        raise RuntimeError("this environment is asynchronous: OpenEnv's server calls "
                           "step_async")

    async def reset_async(self, seed: int | None = None, episode_id: str | None = None,
                          **kwargs: Any) -> LatsObservation:
        unknown = sorted(set(kwargs) - set(RESET_ARGUMENTS))
        if unknown:
            raise ValueError(f"unknown reset argument(s) {', '.join(unknown)}; reset takes "
                             f"{', '.join(RESET_ARGUMENTS)}")
        try:
            if kwargs.get("snapshot"):
                observation = await self._restore(kwargs["snapshot"])
            else:
                observation = await self._start(seed, kwargs.get("task_id"),
                                                 kwargs.get("options"), kwargs.get("actions"))
        except EnvError as error:
            raise ValueError(str(error)) from None
        if episode_id:
            self._episode.episode_id = str(episode_id)
        return observation

    async def step_async(self, action: LatsAction, timeout_s=None, **kwargs) -> LatsObservation:
        episode = self._episode
        if episode is None:
            raise RuntimeError("no episode in this session: call reset first")
        step = await self._step(action.text)
        episode.actions.append(action.text)
        episode.last = step
        episode.steps = step.steps
        episode.truncated = step.truncated
        episode.done = step.terminated or step.truncated
        episode.total_reward += step.reward
        await self._score_if_ended()
        return LatsObservation(text=step.observation, reward=step.reward, done=episode.done,
                               task_id=episode.task_id, steps=step.steps,
                               truncated=step.truncated, invalid_action=step.invalid_action,
                               info=json_format.MessageToDict(step.info))

    @property
    def state(self) -> LatsState:
        episode = self._episode
        if episode is None:
            return LatsState()
        score = episode.score
        return LatsState(
            episode_id=episode.episode_id, step_count=episode.steps, task_id=episode.task_id,
            seed=episode.reset.seed, actions=list(episode.actions), done=episode.done,
            truncated=episode.truncated, total_reward=episode.total_reward,
            snapshot=saved_state.encode(saved_state.SavedState(
                last=episode.last, reset=episode.reset, actions=tuple(episode.actions),
                total_reward=episode.total_reward)),
            score=None if score is None else score.score,
            success=None if score is None else score.success,
            score_details="" if score is None else score.details)

    def get_metadata(self) -> EnvironmentMetadata:
        return self._served.metadata()

    # --------------------------------------------------------------- helpers
    async def _start(self, seed, task_id, options, actions) -> LatsObservation:
        if options is not None and not (isinstance(options, dict) and all(
                isinstance(k, str) and isinstance(v, str) for k, v in options.items())):
            raise ValueError("options must be an object of text values, e.g. "
                             '{"internal_tests": "assert f(1) == 2"}')
        if task_id is not None and not isinstance(task_id, str):
            raise ValueError("task_id must be text (see the README's task list)")
        task = self._served.task_for(task_id, seed)
        reset = environment_pb2.ResetRequest(task_id=task, seed=int(seed or 0),
                                             options=options or {})
        reply = await self._served.calls.call("Reset", reset)
        first = environment_pb2.StepResult(observation=reply.observation, info=reply.info,
                                           snapshot=reply.snapshot)
        self._episode = Episode(reset=reset, task_id=reply.task_id or task, last=first)
        if actions:
            if not (isinstance(actions, list) and all(isinstance(a, str) for a in actions)):
                raise ValueError("actions must be a list of texts (the actions to re-play)")
            return await self._replay(actions)
        return LatsObservation(text=reply.observation, task_id=self._episode.task_id,
                               reward=0.0, info=json_format.MessageToDict(reply.info))

    async def _replay(self, actions: list[str]) -> LatsObservation:
        """Re-plays `actions` from the start, one Step each."""
        observation = None
        for text in actions:
            if self._episode.done:
                raise ValueError(f"the episode ended before the last of the {len(actions)} "
                                 "actions to re-play")
            observation = await self.step_async(LatsAction(text=text))
        return observation

    async def _restore(self, snapshot: Any) -> LatsObservation:
        """Continues the episode `snapshot` (state().snapshot) saved, with its history."""
        saved = saved_state.decode(snapshot)
        episode = await self._served.servicer.episode_at(saved.last.snapshot)   # verified
        if len(saved.actions) != episode.steps:
            raise ValueError(f"snapshot names {len(saved.actions)} action(s) for a state "
                             f"{episode.steps} step(s) in: pass state().snapshot as it is")
        max_steps = self._served.description.limits.max_steps
        truncated = not episode.terminated and episode.steps >= max_steps
        last = saved.last
        self._episode = Episode(reset=saved.reset, task_id=saved.reset.task_id, last=last,
                                actions=list(saved.actions), steps=episode.steps,
                                done=episode.terminated or truncated, truncated=truncated,
                                total_reward=saved.total_reward)
        await self._score_if_ended()
        return LatsObservation(text=last.observation, task_id=self._episode.task_id,
                               steps=episode.steps, done=self._episode.done,
                               truncated=truncated, invalid_action=last.invalid_action,
                               reward=0.0, info=json_format.MessageToDict(last.info))

    async def _score_if_ended(self) -> None:
        episode = self._episode
        if episode.done and self._served.description.capabilities.score:
            episode.score = await self._served.calls.call(
                "Score", environment_pb2.ScoreRequest(snapshot=episode.last.snapshot))

    async def _step(self, text: str) -> environment_pb2.StepResult:
        request = environment_pb2.StepRequest(snapshot=self._episode.last.snapshot,
                                              actions=[text])
        response = await self._served.calls.call("Step", request)
        return response.results[0]


def readme(d: environment_pb2.DescribeResponse, tasks: int) -> str:
    """The README OpenEnv's /metadata shows: how to act, and what we add."""
    examples = "\n".join(f"    {example}" for example in d.action_grammar.examples)
    shown = ", ".join(f"`{t}`" for t in (d.splits[:1] or ["test"]))
    snapshots = (
        "Every state is a snapshot: `state().snapshot` (base64) is the state after the last "
        "step, and `reset(snapshot=...)` continues from it, in this session or on any replica "
        "(started with the same snapshot key, where snapshots are signed blobs); a search can "
        "branch from any earlier state. `reset(task_id=..., actions=[...])` re-plays a state "
        "from its task and actions.")
    return f"""# {d.name} {d.version}

{d.description}

Served by the LATS platform through openenv-core's own server (`lats serve openenv \
{d.name}`).

## Acting

Send `LatsAction(text=...)`: {d.action_grammar.description}
For example:

{examples}

An action the environment cannot parse is not an error: the observation says why, with \
`invalid_action` set, and the state stays as it was (the step still counts). An episode \
ends when the environment says so (`done`) or after {d.limits.max_steps} steps \
(`truncated`).

## Tasks and rewards

{tasks} tasks (split {shown}). `reset(task_id=...)` plays one; `reset(seed=N)` plays task \
N modulo their number; `reset()` plays them in turn. Rewards range from \
{d.reward_range.min:g} to {d.reward_range.max:g}; a final reward of \
{d.reward_range.success_threshold:g} or more is a success. Reward mode: \
{name_of(d.reward_mode) or 'unstated'} (oracle: the final reward reveals hidden ground \
truth; honest: it never does, and only the score does; none: nothing is hidden).

## What the LATS side adds

{snapshots} Once an episode has ended, `state()` also carries its score against hidden \
ground truth (`score`, `success`, `score_details`), which no observation ever shows.
"""
