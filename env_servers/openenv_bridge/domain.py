"""Any OpenEnv environment as a `Domain`: LATS searches it unchanged.

OpenEnv (the `openenv-core` package) serves an environment over HTTP and a
WebSocket: reset, step and state, one episode per WebSocket session, and no
way to snapshot or restore one. This domain fronts such a server by URL:

  * Describe comes from the server's own metadata (GET /metadata) and action
    schema (GET /schema), with any part replaced by a pack file
    (env_servers.pack_file; its [openenv] table names the action field and the
    observation fields to show, its [tasks] table the tasks).
  * Snapshots are replays (`blob_snapshots` is false): the Reset and the
    actions since. What the server answered is remembered by
    state and action, so re-playing a known prefix costs no remote call;
    sessions at known states are pooled (env_servers.openenv_bridge.remote),
    and a step from any other state rebuilds one by a reset and a replay.
  * Replays are only sound if the environment is deterministic. Before serving,
    the bridge resets every probed task twice, in two sessions, plays the
    grammar's examples in both and compares what it sees; an environment that
    differs is refused (`CannotServe`, with the first difference). While
    serving, every state carries a digest of each observation it saw, and a
    replay that sees anything else fails with FAILED_PRECONDITION, saying so.
  * An action the server's schema rejects (its VALIDATION_ERROR) is an invalid
    action, and so is one it failed to execute; the state stays as it was.
  * Score is the episode's reward: the sum of its step rewards, a success at
    the reward range's success_threshold.
  * The bridge is ready (health service lats.environment.v2.Environment) only
    while the OpenEnv server answers its own health check (GET /health, 200):
    `upstreams`.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import json
import math
import re
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from lats_pb import environment_pb2
from lats_runtime.quoting import quoted_list
from lats_runtime.readiness import Upstream

from env_servers.core import (
    CannotServe,
    CapacityExhausted,
    Domain,
    DomainDescription,
    FailedPrecondition,
    InvalidRequest,
    ResetOutcome,
    ScoreResult,
    State,
    StepOutcome,
    TaskSpec,
    Unavailable,
)
from env_servers.generic_pack import generic_prompt_pack
from env_servers.openenv_bridge.actions import ActionCodec, ObservationView, SchemaProblem
from env_servers.openenv_bridge.remote import (CAPACITY_REACHED, VALIDATION_ERROR, Answer,
                                               RemoteError, RemoteUnavailable, SessionPool)
from env_servers.openenv_bridge.settings import OpenEnvSettings
from env_servers.openenv_bridge.tasks import TaskList
from env_servers.pack_file import PackFileError, load_pack_file

SPLIT = "test"
DEFAULT_MAX_STEPS = 20
PROBED_TASKS = 2
PROBE_STEPS = 8
CAPACITY_RETRIES = 40          # x 0.25 s: how long to wait for a free remote session
SEMVER = re.compile(r"^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$")
README_CHARS = 3000


def _http_url(url: str) -> str:
    parts = urlsplit(url.rstrip("/"))
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    return urlunsplit((scheme, parts.netloc, parts.path, "", ""))


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "environment"


def _digest(text: str, reward: float, done: bool) -> str:
    seen = json.dumps([text, reward, done], ensure_ascii=False)
    return hashlib.sha256(seen.encode("utf-8")).hexdigest()[:24]


class KnownResults:
    """What the server answered, by state and action (a reset by the task alone): a
    deterministic environment answers the same again, so replays cost no remote call."""

    def __init__(self, size: int = 20_000):
        self._size = size
        self._answers: OrderedDict[tuple[str, ...], Answer | str] = OrderedDict()

    def get(self, key: tuple[str, ...]) -> Answer | str | None:
        found = self._answers.get(key)
        if found is not None:
            self._answers.move_to_end(key)
        return found

    def put(self, key: tuple[str, ...], answer: Answer | str) -> None:
        self._answers[key] = answer
        self._answers.move_to_end(key)
        while len(self._answers) > self._size:
            self._answers.popitem(last=False)


def _run_in_own_loop(coroutine_function):
    """Runs an async function to completion on a private event loop in a thread
    (the constructor may be called from inside another running loop)."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = asyncio.run(coroutine_function())
        except BaseException as error:  # noqa: BLE001 - handed back to the caller
            outcome["error"] = error

    thread = threading.Thread(target=target, name="openenv-probe", daemon=True)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


class OpenEnvDomain(Domain):
    name = "openenv"
    version = "1.0.0"
    description = "An OpenEnv environment, searched by replay (lats serve env openenv --url URL)."
    settings_class = OpenEnvSettings

    def __init__(self, settings: OpenEnvSettings | None = None):
        if settings is None:
            raise CannotServe("the OpenEnv bridge needs settings naming the server (--url)")
        self.settings = settings
        self.url = settings.url.rstrip("/")
        if importlib.util.find_spec("openenv") is None:
            raise CannotServe("the openenv-core package is not installed; install the extra: "
                              "pip install 'lats-platform[openenv]'")
        self.pack_file, fields, self.tasks = self._read_pack()
        self.metadata, schema = self._fetch_metadata()
        try:
            self.codec = ActionCodec.from_schema(schema.get("action") or {},
                                                 fields.get("action_field"))
            self.view = ObservationView.from_schema(schema.get("observation") or {},
                                                    fields.get("observation_fields", ()))
            grammar = self.codec.grammar(self.pack_file.action_grammar.get("examples", []))
        except SchemaProblem as error:
            raise CannotServe(f"the OpenEnv server at {self.url}: {error}") from None
        self._name_it()
        self._description = self._describe(grammar)
        self.pool = SessionPool(self.url, settings.max_remote_sessions,
                                message_timeout=settings.remote_timeout)
        self._known = KnownResults()
        reason = _run_in_own_loop(self._probe_determinism)
        if reason:
            raise CannotServe(
                f"the OpenEnv environment at {self.url} is not deterministic: {reason}. States "
                "here are replays (OpenEnv cannot snapshot), so the same reset and actions must "
                "give the same observations: seed every random choice from reset's seed")

    def _read_pack(self):
        """The pack file, its [openenv] table (checked) and the task list."""
        try:
            pack = load_pack_file(self.settings.pack)
            pack.check_sections(("openenv", "tasks"))
            fields = dict(pack.section("openenv"))
            unknown = set(fields) - {"action_field", "observation_fields"}
            if unknown:
                raise PackFileError(f"{pack.path}: [openenv] takes action_field and "
                                    f"observation_fields, not {', '.join(sorted(unknown))}")
            if not isinstance(fields.get("action_field", ""), str):
                raise PackFileError(f"{pack.path}: [openenv] action_field must be text")
            shown = fields.get("observation_fields", [])
            if not (isinstance(shown, list) and all(isinstance(f, str) for f in shown)):
                raise PackFileError(f"{pack.path}: [openenv] observation_fields must be a "
                                    "list of field names")
            tasks = TaskList.from_pack(pack.section("tasks"), self.settings.tasks, pack.path)
        except PackFileError as error:
            raise CannotServe(str(error)) from None
        return pack, fields, tasks

    def _name_it(self) -> None:
        """Name, version and description: the pack file's, else the server's metadata."""
        metadata, pack = self.metadata, self.pack_file
        self.name = pack.name or f"openenv-{_slug(str(metadata.get('name', '')))}"
        version = str(metadata.get("version") or "")
        self.version = version if SEMVER.match(version) else "0.0.0"
        about = str(metadata.get("description") or metadata.get("name") or "An environment")
        self.description = pack.description or (
            f"{about} (an OpenEnv environment, searched by replay through the LATS bridge)")

    # ------------------------------------------------------------- Describe
    def _fetch_metadata(self) -> tuple[dict, dict]:
        base = _http_url(self.url)
        try:
            with httpx.Client(timeout=self.settings.remote_timeout, trust_env=False) as http:
                answers = [http.get(f"{base}/{path}") for path in ("metadata", "schema")]
        except httpx.HTTPError as error:
            raise CannotServe(f"cannot reach the OpenEnv server at {self.url}: {error}") from None
        documents = []
        for path, answer in zip(("metadata", "schema"), answers):
            if answer.status_code != 200:
                raise CannotServe(f"{base}/{path} answered HTTP {answer.status_code}: is "
                                  f"{self.url} an OpenEnv server?")
            try:
                document = answer.json()
            except ValueError:
                document = None
            if not isinstance(document, dict):
                raise CannotServe(f"{base}/{path} did not answer a JSON object: is {self.url} "
                                  "an OpenEnv server?")
            documents.append(document)
        return documents[0], documents[1]

    def _describe(self, grammar: environment_pb2.ActionGrammar) -> DomainDescription:
        pack = self.pack_file
        readme = str(self.metadata.get("readme_content") or "").strip()[:README_CHARS]
        instructions = "\n\n".join(part for part in (
            str(self.metadata.get("description") or "").strip(), readme,
            f"Each step, reply with exactly one action. {grammar.description}") if part)
        max_steps = pack.max_steps or DEFAULT_MAX_STEPS
        return DomainDescription(
            capabilities=environment_pb2.Capabilities(inline_tasks=False, score=True),
            blob_snapshots=False,
            action_grammar=pack.grammar(grammar),
            reward_range=pack.rewards(environment_pb2.RewardRange(min=0, max=1,
                                                                  success_threshold=1)),
            prompt_pack=pack.pack(generic_prompt_pack(instructions, list(grammar.examples),
                                                      max_depth=min(max_steps, 10))),
            splits=(SPLIT,),
            reward_mode=pack.reward_mode or "oracle",
            max_steps=max_steps,
            max_action_bytes=8192,
        )

    def describe(self) -> DomainDescription:
        return self._description

    def list_tasks(self, split: str) -> list[str]:
        return self.tasks.ids()

    # -------------------------------------------------------------- episodes
    async def reset(self, task: TaskSpec, seed: int, options: Mapping[str, str]) -> ResetOutcome:
        if options:
            raise InvalidRequest(f"unknown option(s) {quoted_list(options)}: the OpenEnv "
                                 "bridge takes no options")
        if not isinstance(task, str):
            raise InvalidRequest("name a task by id (see ListTasks)")
        kwargs = self.tasks.reset_kwargs(task)
        answer = self._known.get((task,))
        if answer is None:
            session = await self._open_at_reset(kwargs)
            answer = session.last
            self._known.put((task,), answer)
            await self.pool.park((task,), session)
        text, reward = self._seen(answer)
        state = {"task_id": task, "actions": [], "trace": [_digest(text, reward, answer.done)],
                 "observation": text, "done": answer.done, "return": 0.0}
        return ResetOutcome(state, text, task, info={"reset": kwargs})

    async def step(self, state: State, action: str) -> StepOutcome:
        encoded = self.codec.encode(action)
        if isinstance(encoded, str):
            return StepOutcome(state, f"{encoded}. {self._description.action_grammar.description}",
                               invalid_action=True)
        known_key = (*self._key(state), action)
        known = self._known.get(known_key)
        if known is None:
            known, lasting = await self._step_remotely(state, action, encoded)
            if lasting:
                self._known.put(known_key, known)
        if isinstance(known, str):                      # the server refused the action
            return StepOutcome(state, known, invalid_action=True)
        text, reward = self._seen(known)
        new_state = dict(state, actions=[*state["actions"], action],
                         trace=[*state["trace"], _digest(text, reward, known.done)],
                         observation=text, done=known.done,
                         **{"return": state["return"] + reward})
        return StepOutcome(new_state, text, reward=reward, terminated=known.done)

    async def _step_remotely(self, state: State, action: str,
                             encoded: dict) -> tuple[Answer | str, bool]:
        """One step on the server from `state`: its answer, or why it refused the action,
        and whether that will hold (a failure to execute may not: it is not remembered).
        The session moves on to the new state's key (or is closed when the episode ends)."""
        key = self._key(state)
        session = await self._session_at(state)
        try:
            answer = await session.step(encoded)
        except RemoteError as error:
            if error.code == VALIDATION_ERROR:
                await self.pool.park(key, session)      # the server left the episode as it was
                return self._rejection(error), True
            await self.pool.discard(session)            # its episode may be half-changed
            return f"The environment could not apply this action: {error.message[:500]}", False
        except RemoteUnavailable as error:
            await self.pool.discard(session)
            raise Unavailable(f"the OpenEnv server at {self.url} did not answer: {error}") from None
        if answer.done:
            await self.pool.discard(session)
        else:
            await self.pool.park((*key, action), session)
        return answer, True

    def observation_of(self, state: State) -> str:
        return state["observation"]

    def score(self, state: State) -> ScoreResult:
        total = float(state["return"])
        threshold = self._description.reward_range.success_threshold
        steps = len(state["actions"])
        ended = "ended" if state["done"] else "has not ended"
        return ScoreResult(score=total, success=total >= threshold,
                           metrics={"return": total, "steps": float(steps),
                                    "done": 1.0 if state["done"] else 0.0},
                           details=f"episode reward {total:g} after {steps} steps; the episode "
                                   f"{ended}")

    def upstreams(self) -> list[Upstream]:
        return [Upstream(f"the OpenEnv server at {self.url}", self._answers_health)]

    async def _answers_health(self, timeout: float) -> bool:
        """OpenEnv's own health check: GET /health answers 200."""
        async with httpx.AsyncClient(timeout=timeout, trust_env=False) as http:
            return (await http.get(f"{_http_url(self.url)}/health")).status_code == 200

    async def close(self) -> None:
        await self.pool.close_all()

    # --------------------------------------------------------------- helpers
    @staticmethod
    def _key(state: State) -> tuple[str, ...]:
        return (state["task_id"], *state["actions"])

    def _seen(self, answer: Answer) -> tuple[str, float]:
        """The observation as text and the reward as a finite float."""
        reward = 0.0 if answer.reward is None else float(answer.reward)
        if not math.isfinite(reward):
            raise FailedPrecondition(f"the OpenEnv server at {self.url} answered a reward of "
                                     f"{reward}; rewards must be finite numbers")
        return self.view.render(answer.observation), reward

    def _rejection(self, error: RemoteError) -> str:
        problems = []
        for item in error.errors or []:
            if isinstance(item, Mapping):
                where = ".".join(str(part) for part in item.get("loc", ()))
                problems.append(f"{where}: {item.get('msg', '')}".strip(": "))
        detail = "; ".join(problems) or error.message
        return (f"Invalid action ({detail[:400]}). "
                f"{self._description.action_grammar.description}")

    async def _open_at_reset(self, kwargs: dict):
        """A new remote session, reset with `kwargs` (waits while the server is full)."""
        for _ in range(CAPACITY_RETRIES):
            session = await self._new()
            try:
                await session.reset(**kwargs)
                return session
            except RemoteError as error:
                await self.pool.discard(session)
                if error.code != CAPACITY_REACHED:
                    raise FailedPrecondition(f"the OpenEnv server at {self.url} refused "
                                             f"reset({kwargs}): {error}") from None
                await self.pool.close_all()
                await asyncio.sleep(0.25)
            except RemoteUnavailable as error:
                await self.pool.discard(session, already_closed=False)
                raise Unavailable(f"the OpenEnv server at {self.url} did not answer: "
                                  f"{error}") from None
        raise CapacityExhausted(
            f"the OpenEnv server at {self.url} has no free session (its max_concurrent_envs "
            "is reached); retry later, or give it more room than --max-remote-sessions of "
            "every bridge replica together")

    async def _new(self):
        try:
            return await self.pool.new()
        except RemoteUnavailable as error:
            raise Unavailable(f"cannot reach the OpenEnv server at {self.url}: {error}") from None

    async def _session_at(self, state: State):
        """A session in exactly `state`: the pooled one, or a reset and a replay whose
        every observation must match what the state recorded."""
        session = self.pool.take(self._key(state))
        if session is not None:
            return session
        session = await self._open_at_reset(self.tasks.reset_kwargs(state["task_id"]))
        try:
            self._check_replay(state, 0, session.last)
            for index, action in enumerate(state["actions"], start=1):
                try:
                    answer = await session.step(self.codec.encode(action))
                except RemoteError as error:
                    raise FailedPrecondition(self._diverged(
                        state, index, f"refused {action!r} ({error})")) from None
                self._check_replay(state, index, answer)
        except RemoteUnavailable as error:
            await self.pool.discard(session, already_closed=False)
            raise Unavailable(f"the OpenEnv server at {self.url} did not answer: {error}") from None
        except BaseException:
            await self.pool.discard(session)
            raise
        return session

    def _check_replay(self, state: State, index: int, answer: Answer) -> None:
        text, reward = self._seen(answer)
        if _digest(text, reward, answer.done) != state["trace"][index]:
            raise FailedPrecondition(self._diverged(state, index, f"showed {text[:200]!r}"))

    def _diverged(self, state: State, index: int, what: str) -> str:
        where = "its reset" if index == 0 else f"action {index} ({state['actions'][index - 1]!r})"
        return (f"the OpenEnv environment at {self.url} is not deterministic: replaying task "
                f"{state['task_id']!r}, {where} {what}, not what the first play saw; states "
                "are replays, so the same reset and actions must give the same observations")

    async def _probe_determinism(self) -> str:
        """"" if two plays of the probe script agree, else the first difference."""
        pool = SessionPool(self.url, 2, message_timeout=self.settings.remote_timeout)
        script = list(self._description.action_grammar.examples)
        try:
            for task_id in self.tasks.ids()[:PROBED_TASKS]:
                kwargs = self.tasks.reset_kwargs(task_id)
                plays = []
                for _ in range(2):
                    session = await pool.new()
                    try:
                        plays.append(await self._play(session, kwargs, script))
                    finally:
                        await pool.discard(session)
                for index, (first, second) in enumerate(zip(*plays)):
                    if first != second:
                        where = "reset" if index == 0 else f"action {script[index - 1]!r}"
                        return (f"task {task_id!r} ({kwargs}) played twice: after {where} it "
                                f"showed {first[:160]!r}, then {second[:160]!r}")
                if len(plays[0]) != len(plays[1]):
                    return f"task {task_id!r} played twice ended after different numbers of steps"
        except RemoteUnavailable as error:
            raise CannotServe(f"the OpenEnv server at {self.url} did not answer: {error}") from None
        except RemoteError as error:
            raise CannotServe(f"the OpenEnv server at {self.url} refused the check: {error}") from None
        finally:
            await pool.close_all()
        return ""

    async def _play(self, session, kwargs: dict, script: list[str]) -> list[str]:
        """What one play of the probe shows: the reset, then each example action."""
        seen = []
        answer = await session.reset(**kwargs)
        seen.append(self._probe_view(answer))
        for action in script[:PROBE_STEPS]:
            if answer.done:
                break
            encoded = self.codec.encode(action)
            if isinstance(encoded, str):
                seen.append(f"not an action: {action!r}")
                continue
            try:
                answer = await session.step(encoded)
            except RemoteError as error:
                seen.append(f"error {error.code}")
                if error.code != VALIDATION_ERROR:
                    break
                continue
            seen.append(self._probe_view(answer))
        return seen

    def _probe_view(self, answer: Answer) -> str:
        text, reward = self._seen(answer)
        return f"{text} (reward {reward:g}{', done' if answer.done else ''})"
