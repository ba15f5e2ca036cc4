"""The TextArena single-player games this adapter serves, and why these.

Each game here was checked to need nothing downloaded at run time (Wordle,
Hangman, WordLadder and SpellingBee fetch NLTK word lists from a host these
machines cannot reach) and to draw its randomness only from Python's `random`
module, which TextArena seeds at reset, so a task (a game and a seed) replays
identically. Games whose "invalid move" changes the state (Minesweeper counts
hitting a mine as one) are left out: here an invalid move leaves the state as
it was, as the protocol requires; so are Countdown and Cryptarithm, whose
0.7.4 releases report a number instead of the reason for an invalid move.

`examples` are actions in the game's own format (the kit plays them);
`max_steps` leaves room for a few invalid moves beyond the game's own turn
limit; `reward_mode` is "oracle" where the terminal reward reveals a hidden
secret that a search could otherwise only guess (the number, the code), else
"none" (the game's checker uses nothing the player cannot see).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GameSpec:
    game_id: str
    title: str
    grammar: str
    examples: tuple[str, ...]
    max_steps: int
    reward_mode: str = "none"
    seeded: bool = True       # the seed changes the puzzle (else one task)
    search_depth: int = 10


GAMES: dict[str, GameSpec] = {spec.game_id: spec for spec in (
    GameSpec("TowerOfHanoi-v0", "Tower of Hanoi (3 disks)",
             "[SOURCE TARGET] moves the top disk of tower SOURCE onto tower TARGET (A, B or C)",
             ("[A C]", "[A B]", "[C B]"), max_steps=18, seeded=False, search_depth=8),
    GameSpec("TowerOfHanoi-v0-medium", "Tower of Hanoi (4 disks)",
             "[SOURCE TARGET] moves the top disk of tower SOURCE onto tower TARGET (A, B or C)",
             ("[A B]", "[A C]", "[B C]"), max_steps=34, seeded=False, search_depth=16),
    GameSpec("GuessTheNumber-v0", "Guess the Number (1 to 20)",
             "[N] guesses the whole number N; the game answers higher or lower",
             ("[10]", "[5]", "[15]"), max_steps=14, reward_mode="oracle", search_depth=6),
    GameSpec("Mastermind-v0", "Mastermind (4 digits from 1 to 6, no repeats)",
             "[D D D D] guesses the code, four different digits from 1 to 6",
             ("[1 2 3 4]", "[5 6 1 2]", "[3 4 5 6]"), max_steps=24, reward_mode="oracle",
             search_depth=8),
    GameSpec("LightsOut-v0", "Lights Out (5x5)",
             "[ROW COL] presses the light at ROW, COL (0 to 4), toggling it and its neighbours",
             ("[0 0]", "[2 3]", "[4 4]"), max_steps=24, search_depth=12),
    GameSpec("FifteenPuzzle-v0", "15-Puzzle",
             "[DIRECTION] slides a tile into the empty space: [up], [down], [left] or [right]",
             ("[up]", "[left]", "[down]", "[right]"), max_steps=60, search_depth=20),
    GameSpec("FrozenLake-v0", "Frozen Lake (4x4)",
             "[DIRECTION] moves the player: [up], [down], [left] or [right]",
             ("[down]", "[right]", "[up]", "[left]"), max_steps=30, search_depth=10),
    GameSpec("PegJump-v0", "Peg Jump (triangle of 15 holes)",
             "[FROM TO] jumps the peg in hole FROM over a neighbour into the empty hole TO",
             ("[12 5]", "[14 5]", "[3 8]"), max_steps=20, seeded=False, search_depth=13),
    GameSpec("RushHour-v0", "Rush Hour",
             "[CAR+] or [CAR-] slides the car with that letter forward or backward",
             ("[A+]", "[A-]", "[B+]"), max_steps=40, search_depth=15),
)}


def game_spec(game_id: str) -> GameSpec:
    """The catalog entry for `game_id`; ValueError listing the served games otherwise."""
    try:
        return GAMES[game_id]
    except KeyError:
        raise ValueError(
            f"TextArena game {game_id!r} is not served: these single-player games are "
            f"({', '.join(GAMES)}); others need run-time downloads, several players, or have "
            "state-changing invalid moves") from None
