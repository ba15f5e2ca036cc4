"""TextArena's single-player games as a `Domain`, one game per server.

Tasks are seeds (`seed-0`, `seed-1`, ...): TextArena seeds Python's random
generator at reset, so a seed names one puzzle. There are no snapshot blobs
(`blob_snapshots` is false): the snapshots are replays, the Reset and the moves
since, and the engine (env_servers.textarena.engine) rebuilds a state from one. Before serving, the domain plays the game's example moves twice, once
continuing a live game and once replaying from scratch, and refuses to serve
(`CannotServe`) if the two disagree.

State (JSON): `seed`, `moves` (the valid moves so far), `observation` (the
latest), `done`, `reward` (the game's final reward once done) and `reason`
(why the game ended). Step rewards are 0 until the game ends, then the
game's own reward (1 for a solved puzzle, partial credit at its turn limit);
Score reports the same figure, with success at 1.

Every game here reads a move from its first bracketed group, so the state a
step leads to is named (StepResult.state_key) by the seed and the canonical
moves so far, each its first `[...]` with spaces collapsed: `[A C]` and
`[A C] moves the top disk of tower A onto tower C` lead to one state, and a
planner merges them into one child.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from importlib import metadata

from lats_pb import environment_pb2
from lats_runtime.quoting import quoted, quoted_list

from env_servers.core import (
    CannotServe,
    Domain,
    DomainDescription,
    InvalidRequest,
    ResetOutcome,
    ScoreResult,
    State,
    StepOutcome,
    TaskNotFound,
    TaskSpec,
)
from env_servers.generic_pack import generic_prompt_pack
from env_servers.pack_file import PackFileError, load_pack_file
from env_servers.textarena.engine import GameEngine
from env_servers.textarena.games import game_spec
from env_servers.textarena.settings import TextArenaSettings

SPLIT = "test"
TASK_PREFIX = "seed-"
SUCCESS = 1.0
ADAPTER_VERSION = "1.1.0"
_BRACKETED = re.compile(r"\[[^\[\]]*\]")


def canonical_move(action: str) -> str:
    """The move a game reads from `action`: its first bracketed group, inner spaces
    collapsed (the whole action, stripped, when it has none)."""
    found = _BRACKETED.search(action)
    if found is None:
        return " ".join(action.split())
    return "[" + " ".join(found.group(0)[1:-1].split()) + "]"


def textarena_version() -> str:
    try:
        return metadata.version("textarena")
    except metadata.PackageNotFoundError:
        raise CannotServe("the textarena package is not installed; install the extra: "
                          "pip install 'lats-platform[textarena]'") from None


class TextArenaDomain(Domain):
    name = "textarena"
    version = ADAPTER_VERSION
    description = ("TextArena's single-player games (one per server: --game), searched by "
                   "replay with seeded randomness.")
    offload_sync_calls = True
    settings_class = TextArenaSettings

    def __init__(self, settings: TextArenaSettings | None = None):
        self.settings = settings or TextArenaSettings()
        self.spec = game_spec(self.settings.game)
        upstream = textarena_version()
        try:
            self.pack_file = load_pack_file(self.settings.pack)
            self.pack_file.check_sections(())
        except PackFileError as error:
            raise CannotServe(str(error)) from None
        self.name = self.pack_file.name or f"textarena-{self.spec.game_id}"
        self.version = f"{ADAPTER_VERSION}+textarena.{upstream}"
        self.description = self.pack_file.description or (
            f"{self.spec.title}, a single-player game from TextArena {upstream}. Tasks are "
            "seeds; states are replays of the moves since the start.")
        self.engine = GameEngine(self.spec.game_id, self.settings.options())
        self._check_replays()

    # ------------------------------------------------------------- Describe
    def describe(self) -> DomainDescription:
        spec, pack = self.spec, self.pack_file
        grammar = pack.grammar(environment_pb2.ActionGrammar(
            description=f"One move per step, in square brackets: {spec.grammar}.",
            examples=list(spec.examples)))
        instructions = (
            f"You are playing {spec.title}, a single-player game. The task shows the game's "
            f"rules and its board. Each step, reply with exactly one move in the game's "
            f"format: {spec.grammar}, e.g. {spec.examples[0]}.")
        prompt_pack = pack.pack(generic_prompt_pack(
            instructions, list(grammar.examples), max_depth=spec.search_depth))
        return DomainDescription(
            capabilities=environment_pb2.Capabilities(inline_tasks=False, score=True),
            facts=environment_pb2.EnvironmentFacts(state_keys=True),
            blob_snapshots=False,
            action_grammar=grammar,
            reward_range=pack.rewards(environment_pb2.RewardRange(
                min=0, max=1, success_threshold=SUCCESS)),
            prompt_pack=prompt_pack,
            splits=(SPLIT,),
            reward_mode=pack.reward_mode or spec.reward_mode,
            max_steps=pack.max_steps or spec.max_steps,
            max_action_bytes=1024,
        )

    def list_tasks(self, split: str) -> list[str]:
        return [f"{TASK_PREFIX}{seed}" for seed in range(self._task_count())]

    # -------------------------------------------------------------- episodes
    def reset(self, task: TaskSpec, seed: int, options: Mapping[str, str]) -> ResetOutcome:
        if options:
            raise InvalidRequest(f"unknown option(s) {quoted_list(options)}: TextArena games "
                                 "take no options")
        game_seed = self._seed_of(task)
        observation = self.engine.start(game_seed)
        state = {"seed": game_seed, "moves": [], "observation": observation, "done": False,
                 "reward": 0.0, "reason": ""}
        return ResetOutcome(state, observation, str(task),
                            info={"game": self.spec.game_id, "seed": game_seed},
                            state_key=json.dumps([game_seed, []]))

    def step(self, state: State, action: str) -> StepOutcome:
        move = self.engine.play(state["seed"], state["moves"], action)
        if move.invalid:
            return StepOutcome(state, move.observation, invalid_action=True)
        new_state = dict(state, moves=[*state["moves"], action], observation=move.observation,
                         done=move.done, reward=move.reward if move.done else 0.0,
                         reason=move.reason)
        info = {"game_over": move.reason} if move.done else {}
        state_key = json.dumps([state["seed"], [canonical_move(m) for m in new_state["moves"]]])
        return StepOutcome(new_state, move.observation,
                           reward=move.reward if move.done else 0.0,
                           terminated=move.done, info=info, state_key=state_key)

    def observation_of(self, state: State) -> str:
        return state["observation"]

    def score(self, state: State) -> ScoreResult:
        moves = len(state["moves"])
        if not state["done"]:
            return ScoreResult(score=0.0, success=False, metrics={"moves": moves},
                               details=f"the game has not ended after {moves} moves")
        reward = float(state["reward"])
        return ScoreResult(score=reward, success=reward >= SUCCESS,
                           metrics={"reward": reward, "moves": moves},
                           details=state["reason"] or "the game ended")

    # --------------------------------------------------------------- helpers
    def _task_count(self) -> int:
        return self.settings.tasks if self.spec.seeded else 1

    def _seed_of(self, task: TaskSpec) -> int:
        if not isinstance(task, str):
            raise InvalidRequest("TextArena tasks are ids like seed-0; see ListTasks")
        digits = task[len(TASK_PREFIX):] if task.startswith(TASK_PREFIX) else ""
        if not (digits.isdigit() and digits == str(int(digits))
                and int(digits) < self._task_count()):
            raise TaskNotFound(f"unknown task {quoted(task)}: tasks are seed-0 to "
                               f"seed-{self._task_count() - 1} (see ListTasks)")
        return int(digits)

    def _check_replays(self) -> None:
        """Refuses a game that does not replay exactly: the examples played on, move
        by move, must look the same as each prefix replayed from the reset."""
        fresh = GameEngine(self.spec.game_id, self.settings.options(), cache_size=0)
        moves: list[str] = []
        first = self.engine.start(0)
        if fresh.start(0) != first:
            raise CannotServe(f"{self.spec.game_id} is not deterministic: two resets with "
                              "seed 0 showed different first observations")
        for action in self.spec.examples:
            live = self.engine.play(0, moves, action)
            replayed = fresh.play(0, moves, action)
            if live != replayed:
                raise CannotServe(
                    f"{self.spec.game_id} does not replay deterministically: after "
                    f"{len(moves)} moves, {action!r} gave {live.observation[:120]!r} live "
                    f"but {replayed.observation[:120]!r} replayed from the reset")
            if live.done:
                break
            if not live.invalid:
                moves.append(action)
