"""Settings of the TextArena environment (`lats serve env textarena --help`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from env_servers.core.domain_settings import setting
from env_servers.textarena.games import GAMES, game_spec


@dataclass(frozen=True)
class TextArenaSettings:
    """`game`: a catalog id (env_servers.textarena.games); `tasks`: seeds listed;
    `game_options`: a JSON object of the game's constructor arguments; `pack`:
    a pack file (env_servers.pack_file) replacing parts of the generated Describe."""

    game: str = setting(
        "TowerOfHanoi-v0", env="LATS_TEXTARENA_GAME", choices=tuple(GAMES),
        help="The TextArena single-player game to serve.")
    tasks: int = setting(
        100, env="LATS_TEXTARENA_TASKS", min=1, max=100_000,
        help="Tasks listed in the test split: seeds 0..N-1 (one task for games the seed "
             "does not change).")
    game_options: str = setting(
        "", env="LATS_TEXTARENA_GAME_OPTIONS",
        help='The game\'s constructor arguments as a JSON object, e.g. \'{"max_turns": 20}\'.')
    pack: Path | None = setting(
        None, env="LATS_TEXTARENA_PACK", must_exist=True, dir_okay=False,
        help="A TOML pack file replacing parts of the generated Describe (prompt pack, "
             "grammar, reward range, max_steps).")

    def __post_init__(self) -> None:
        game_spec(self.game)
        self.options()

    def options(self) -> dict:
        """`game_options` parsed; ValueError says what is wrong."""
        if not self.game_options.strip():
            return {}
        try:
            options = json.loads(self.game_options)
        except json.JSONDecodeError as error:
            raise ValueError(f"--game-options is not JSON: {error}") from None
        if not isinstance(options, dict):
            raise ValueError('--game-options must be a JSON object, e.g. {"max_turns": 20}')
        return options
