"""GridWalk: a small OpenEnv environment, written the way OpenEnv's own examples are.

The player walks a 4x4 grid from the top-left corner to the goal in the
bottom-right corner around walls that the reset's seed places. Actions are
`{"move": "up" | "down" | "left" | "right"}`; reaching the goal ends the
episode with reward 1, and 12 moves without it end it with reward 0.

`DriftingGridWalk` is deterministic for its first four moves only.
`NoisyGridWalk` ignores the seed (its walls come from the operating system's
entropy): the same reset twice gives different grids, which the LATS bridge
must refuse to search.
"""

from __future__ import annotations

import random
import uuid
from collections import deque
from typing import Literal

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, EnvironmentMetadata, Observation, State
from pydantic import Field

SIZE = 4
WALLS = 4
MAX_MOVES = 12
GOAL = (SIZE - 1, SIZE - 1)
STEPS = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}


class GridAction(Action):
    move: Literal["up", "down", "left", "right"] = Field(description="Direction to walk")


class GridObservation(Observation):
    board: str = Field(default="", description="The grid: P player, # wall, G goal")
    message: str = Field(default="", description="What the last move did")


class GridState(State):
    position: tuple[int, int] = (0, 0)
    walls: list[tuple[int, int]] = Field(default_factory=list)


def _reachable(walls: set) -> bool:
    seen, queue = {(0, 0)}, deque([(0, 0)])
    while queue:
        row, col = queue.popleft()
        if (row, col) == GOAL:
            return True
        for d_row, d_col in STEPS.values():
            nxt = (row + d_row, col + d_col)
            if 0 <= nxt[0] < SIZE and 0 <= nxt[1] < SIZE and nxt not in walls and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return False


class GridWalkEnvironment(Environment[GridAction, GridObservation, GridState]):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self):
        super().__init__()
        self._state = GridState()

    def _generator(self, seed):
        return random.Random(seed)

    def reset(self, seed=None, episode_id=None, **kwargs) -> GridObservation:
        rng = self._generator(seed)
        cells = [(r, c) for r in range(SIZE) for c in range(SIZE) if (r, c) not in ((0, 0), GOAL)]
        while True:
            walls = set(rng.sample(cells, WALLS))
            if _reachable(walls):
                break
        self._state = GridState(episode_id=episode_id or str(uuid.uuid4()), step_count=0,
                                position=(0, 0), walls=sorted(walls))
        return self._observe("Walk from P to G.", reward=0.0, done=False)

    def step(self, action: GridAction, timeout_s=None, **kwargs) -> GridObservation:
        state = self._state
        state.step_count += 1
        d_row, d_col = STEPS[action.move]
        row, col = state.position[0] + d_row, state.position[1] + d_col
        if not (0 <= row < SIZE and 0 <= col < SIZE) or (row, col) in set(map(tuple, state.walls)):
            message = f"A wall blocks the way {action.move}."
        else:
            state.position = (row, col)
            message = f"You moved {action.move}."
        if tuple(state.position) == GOAL:
            return self._observe(message + " You reached the goal!", reward=1.0, done=True)
        if state.step_count >= MAX_MOVES:
            return self._observe(message + " Out of moves.", reward=0.0, done=True)
        return self._observe(message, reward=0.0, done=False)

    @property
    def state(self) -> GridState:
        return self._state

    def get_metadata(self) -> EnvironmentMetadata:
        return EnvironmentMetadata(
            name="GridWalk", version="0.1.0", author="LATS tests",
            description="Walk a 4x4 grid from the top-left corner to the goal at the "
                        "bottom-right, around walls.",
            readme_content="Moves: up, down, left, right. A wall or the edge stops you. "
                           "Reaching G scores 1; 12 moves without it score 0.")

    def _observe(self, message: str, reward: float, done: bool) -> GridObservation:
        walls = set(map(tuple, self._state.walls))
        rows = []
        for r in range(SIZE):
            cells = []
            for c in range(SIZE):
                cell = (r, c)
                cells.append("P" if cell == tuple(self._state.position) else "#" if cell in walls
                             else "G" if cell == GOAL else ".")
            rows.append(" ".join(cells))
        return GridObservation(board="\n".join(rows), message=message, reward=reward, done=done)


class NoisyGridWalkEnvironment(GridWalkEnvironment):
    def _generator(self, seed):
        return random.SystemRandom()


class DriftingGridWalkEnvironment(GridWalkEnvironment):
    """Deterministic for four moves, then a gust of wind, different every time, is
    reported: a short check cannot see it, a replay past move four does."""

    def step(self, action: GridAction, timeout_s=None, **kwargs) -> GridObservation:
        observation = super().step(action, timeout_s, **kwargs)
        if self._state.step_count > 4:
            observation.message += f" A gust of wind ({random.SystemRandom().randint(1, 10**9)})."
        return observation
