"""Playing one TextArena single-player game by replay, with seeded randomness.

A TextArena game keeps its state in a Python object and draws its randomness
from the global `random` module, which its reset seeds. A state here is named
by the seed and the moves taken since the reset; `GameEngine.play` rebuilds
it by replaying them (or resumes a cached copy together with the random
generator's state at that point), then applies one more move.

Every call runs under one lock with the global random generator swapped for
the episode's own, so concurrent calls never interleave their draws and the
rest of the process keeps its generator. A move the game rejects (it does not
advance the turn) is reported as invalid and its effects are thrown away.
"""

from __future__ import annotations

import contextlib
import copy
import io
import random
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

CACHE_SIZE = 256
# Message kinds the player sees (PLAYER_ACTION echoes the move; it is skipped).
_SHOWN = ("PROMPT", "GAME_MESSAGE", "GAME_BOARD", "GAME_ACTION_DESCRIPTION", "GAME_ADMIN")


@dataclass(frozen=True)
class Move:
    """The result of one move: what the player sees and how the game stands."""

    observation: str
    invalid: bool = False
    done: bool = False
    reward: float = 0.0
    reason: str = ""


class GameEngine:
    """Resets and replays one game (`game_id`, with `game_kwargs`) by seed and moves."""

    def __init__(self, game_id: str, game_kwargs: dict[str, Any] | None = None,
                 cache_size: int = CACHE_SIZE):
        import textarena
        from textarena.wrappers import ActionFormattingWrapper

        self.game_id = game_id
        self._textarena = textarena
        self._formatting = ActionFormattingWrapper
        self._kwargs = dict(game_kwargs or {})
        self._lock = threading.Lock()
        # (seed, *moves) -> (the game there, the generator's state, its observation)
        self._cache: OrderedDict[tuple, tuple[Any, Any, str]] = OrderedDict()
        self._cache_size = cache_size

    # ------------------------------------------------------------------ public
    def start(self, seed: int) -> str:
        """The first observation of the game with `seed` (its rules and board)."""
        with self._lock, self._own_random():
            cached = self._cache.get((seed,))
            if cached is not None:
                self._cache.move_to_end((seed,))
                return cached[2]
            env, observation = self._reset(seed)
            self._remember((seed,), env, observation)
            return observation

    def play(self, seed: int, moves: Sequence[str], move: str) -> Move:
        """Applies `move` after the valid `moves` of the game with `seed`."""
        key = (seed, *moves)
        with self._lock, self._own_random():
            env = self._at(seed, moves)
            turn = env.state.turn
            done, _info = env.step(move)
            observation = self._observed(env)
            if done:
                rewards, game_info = env.close()
                reward = float((rewards or {}).get(0, 0.0))
                reason = str(game_info.get(0, {}).get("reason", ""))
                ending = f"Game over: {reason}" if reason else "Game over."
                text = f"{observation}\n{ending}".strip()
                return Move(text, done=True, reward=reward, reason=reason)
            if env.state.turn == turn:     # the game refused the move
                return Move(observation or "Invalid move.", invalid=True)
            self._remember((*key, move), env, observation)
            return Move(observation)

    # ----------------------------------------------------------------- helpers
    @contextlib.contextmanager
    def _own_random(self):
        """The global generator belongs to the episode inside; restored after."""
        outside = random.getstate()
        try:
            yield
        finally:
            random.setstate(outside)

    def _make(self):
        with contextlib.redirect_stdout(io.StringIO()):   # some games print progress
            env = self._textarena.make(self.game_id + "-raw", **self._kwargs)
        return self._formatting(env)

    def _reset(self, seed: int):
        env = self._make()
        with contextlib.redirect_stdout(io.StringIO()):
            env.reset(num_players=1, seed=seed)
        return env, self._observed(env)

    def _at(self, seed: int, moves: Sequence[str]):
        """A private copy of the game after `moves`, with the generator as it was then:
        the longest cached prefix, played on (or a fresh reset, played from the start)."""
        for done_moves in range(len(moves), -1, -1):
            cached = self._cache.get((seed, *moves[:done_moves]))
            if cached is not None:
                self._cache.move_to_end((seed, *moves[:done_moves]))
                env, generator, _ = cached
                random.setstate(generator)
                env = copy.deepcopy(env)
                break
        else:
            env, _ = self._reset(seed)
            done_moves = 0
        for index in range(done_moves, len(moves)):
            done, _ = env.step(moves[index])
            self._observed(env)
            if done:
                raise ValueError(f"the game ended at move {index + 1} of {len(moves)}")
        return env

    def _remember(self, key: tuple, env, observation: str) -> None:
        if self._cache_size <= 0:
            return
        self._cache[key] = (copy.deepcopy(env), random.getstate(), observation)
        self._cache.move_to_end(key)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    @staticmethod
    def _observed(env) -> str:
        """The messages the game addressed to the player since the last call."""
        _player, messages = env.get_observation()
        lines = [text for _sender, text, kind in messages
                 if getattr(kind, "name", "") in _SHOWN and str(text).strip()]
        return "\n".join(str(line).strip("\n") for line in lines).strip()
