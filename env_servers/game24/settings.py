"""Settings of the Game-of-24 environment (`lats serve env game24 --help`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from env_servers.core.domain_settings import setting


@dataclass(frozen=True)
class Game24Settings:
    """`data`: the puzzle csv (column `Puzzles`); None means the vendored 24.csv."""

    data: Path | None = setting(
        None, env="LATS_GAME24_DATA", must_exist=True, dir_okay=False,
        help="Puzzle csv with a `Puzzles` column (default: the vendored 24.csv).")
