"""TextArena's single-player games through one adapter, as real server processes.

The conformance kit (replay checks included, two replicas) passes on three
games; a scripted-model LATS search solves Tower of Hanoi through `lats solve`;
replays are exact and leave the process's random generator alone; a game
that does not replay deterministically is refused before serving.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from textarena.core import ObservationType
from textarena.envs.GuessTheNumber.env import GuessTheNumberEnv
from textarena.envs.registration import ENV_REGISTRY, EnvSpec

from env_servers.core import CannotServe
from env_servers.textarena import games
from env_servers.textarena.domain import TextArenaDomain, canonical_move
from env_servers.textarena.engine import GameEngine
from env_servers.textarena.settings import TextArenaSettings
from lats_runtime.processes import running_services
from planner.evaluation import parse_value
from tests import kit

SCRIPT = Path(__file__).with_name("hanoi_script.json")
KIT_GAMES = ["TowerOfHanoi-v0", "GuessTheNumber-v0", "LightsOut-v0"]
HANOI = ["[A C]", "[A B]", "[C B]", "[A C]", "[B A]", "[B C]", "[A C]"]


@pytest.mark.timeout(200)
@pytest.mark.parametrize("game", KIT_GAMES)
def test_the_kit_passes_on_a_game_with_its_replay_checks(game, tmp_path):
    args = ["env", "textarena", "--game", game, "--tasks", "5"]
    with kit.services_together(game, args, timeout=60) as (first, second):
        report = tmp_path / "kit.xml"
        run = subprocess.run(kit.kit_command(first.address, report, replica=second.address),
                             capture_output=True, text=True, timeout=170)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    results = kit.kit_results(report)
    assert len(results) >= 60
    for replay_check in kit.REPLAY_ONLY:
        assert results[replay_check] == "passed", replay_check
    for must_run in ("test_parallel_episodes_stay_independent",
                     "test_every_step_counts_and_the_limit_truncates",
                     "test_a_second_replica_answers_identically",
                     "test_a_second_replica_scores_alike"):
        assert results[must_run] == "passed", must_run


def test_replays_match_live_play_and_keep_the_process_random_generator():
    engine = GameEngine("GuessTheNumber-v0")
    fresh = GameEngine("GuessTheNumber-v0", cache_size=0)
    random.seed(12345)
    expected_draw = random.Random(12345).random()
    moves: list[str] = []
    assert engine.start(3) == fresh.start(3)
    for guess in ("[10]", "[99]", "[5]", "[15]", "[2]"):
        live, replayed = engine.play(3, moves, guess), fresh.play(3, moves, guess)
        assert live == replayed
        if live.done:
            break
        if not live.invalid:
            moves.append(guess)
    assert random.random() == expected_draw, "the game drew from the process's generator"
    other_seed = GameEngine("GuessTheNumber-v0")
    targets = set()
    for seed in range(6):      # seeds name different secret numbers
        other_seed.start(seed)
        targets.add(tuple(other_seed.play(seed, [], f"[{n}]").observation
                          for n in (5, 10, 15)))
    assert len(targets) > 1


def test_an_invalid_move_is_an_observation_and_keeps_the_state():
    domain = TextArenaDomain(TextArenaSettings(game="TowerOfHanoi-v0"))
    state = domain.reset("seed-0", 0, {}).state
    refused = domain.step(state, "[C A]")            # tower C is empty
    assert refused.invalid_action and not refused.terminated
    assert "empty tower" in refused.observation
    for move in HANOI:
        outcome = domain.step(state, move)
        assert not outcome.invalid_action, outcome.observation
        state = outcome.state
    assert outcome.terminated and outcome.reward == 1.0
    assert "Congratulations" in outcome.observation
    score = domain.score(state)
    assert score.success and score.score == 1.0 and score.metrics["moves"] == 7


def test_unknown_tasks_games_and_options_say_what_to_fix():
    domain = TextArenaDomain(TextArenaSettings(game="GuessTheNumber-v0", tasks=3))
    assert domain.list_tasks("test") == ["seed-0", "seed-1", "seed-2"]
    with pytest.raises(Exception, match="seed-0 to seed-2"):
        domain.reset("seed-3", 0, {})
    with pytest.raises(Exception, match="seed-0 to seed-2"):
        domain.reset("seed-01", 0, {})
    with pytest.raises(Exception, match="take no options"):
        domain.reset("seed-0", 0, {"x": "1"})
    with pytest.raises(ValueError, match="Wordle-v0.*not served"):
        TextArenaSettings(game="Wordle-v0")
    with pytest.raises(ValueError, match="JSON object"):
        TextArenaSettings(game_options="[1, 2]")
    listed = subprocess.run([sys.executable, "-m", "lats", "serve", "env", "textarena",
                             "--game", "Wordle-v0"], capture_output=True, text=True, timeout=60)
    assert listed.returncode == 2 and "Wordle-v0" in listed.stderr


class NoisyGuessTheNumber(GuessTheNumberEnv):
    """Guess the Number whose every move also reports how many moves the process has
    played: the same moves replayed from the reset look different."""

    played = 0

    def step(self, action):
        NoisyGuessTheNumber.played += 1
        self.state.add_observation(message=f"(move {NoisyGuessTheNumber.played} today)",
                                   observation_type=ObservationType.GAME_MESSAGE)
        return super().step(action)


def test_a_game_that_does_not_replay_is_refused_with_the_reason(monkeypatch):
    game_id = "NoisyGuess-v0"
    monkeypatch.setitem(ENV_REGISTRY, game_id + "-raw", EnvSpec(
        id=game_id + "-raw", entry_point=NoisyGuessTheNumber, default_wrappers=None,
        kwargs={"min_number": 1, "max_number": 20, "max_turns": 10}))
    monkeypatch.setitem(games.GAMES, game_id, games.GameSpec(
        game_id, "Noisy guessing", "[N] guesses N", ("[10]", "[5]"), max_steps=12))
    with pytest.raises(CannotServe, match="does not replay deterministically: after 0 moves, "
                                          "'\\[10\\]' gave"):
        TextArenaDomain(TextArenaSettings(game=game_id))


@pytest.fixture(scope="module")
def hanoi_services(tmp_path_factory):
    db = tmp_path_factory.mktemp("planner") / "runs.sqlite3"
    specs = [
        ("env", ["env", "textarena", "--game", "TowerOfHanoi-v0"]),
        ("gateway", ["gateway", "--backend", "scripted", "--script", str(SCRIPT)]),
        ("planner", ["planner", "--gateway", "{gateway}", "--db", str(db)]),
    ]
    with running_services(specs, timeout=60) as running:
        yield running


def test_a_scripted_lats_search_solves_tower_of_hanoi(hanoi_services):
    out = subprocess.run(
        [sys.executable, "-m", "lats", "solve", "--planner", hanoi_services["planner"].address,
         "--env", hanoi_services["env"].address, "--task", "seed-0", "--method", "lats_paper", "-n", "2", "-k", "4",
         "-d", "8", "--seed", "3"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    text = out.stdout
    assert "== SOLVED" in text and "verified by the environment: score 1" in text, text[-3000:]
    assert "Shuttling disk 1" in text, "the failed detour was reflected on"
    assert "Congratulations! You solved the Tower of Hanoi puzzle." in text


def test_a_move_with_trailing_words_leads_to_the_same_state_key():
    domain = TextArenaDomain(TextArenaSettings(game="TowerOfHanoi-v0"))
    assert domain.describe().facts.state_keys
    state = domain.reset("seed-0", 0, {}).state
    plain = domain.step(state, "[A C]")
    worded = domain.step(state, "[A  C] moves the top disk of tower A onto tower C")
    other = domain.step(state, "[A B]")
    assert plain.state_key and plain.state_key == worded.state_key != other.state_key
    later = domain.step(plain.state, "[A B]")
    assert later.state_key not in (plain.state_key, other.state_key), "the history counts"
    assert canonical_move("think first [B C] then") == "[B C]"
    assert canonical_move("  no brackets  here ") == "no brackets here"


# What the embedded 0.5B model really answered to the generic pack's value prompt on
# Tower of Hanoi (a recorded LATS search of TowerOfHanoi-v0 task 0): a bare verdict,
# no reasoning. Every reply parses; the many 0.00 values are the model's answer (1).
REAL_HANOI_VALUE_REPLIES = [("Thus the score is 1", 0.0), ("Thus the score is 10", 1.0),
                            ("Thus the score is 5", 4 / 9)]


@pytest.mark.parametrize(("reply", "value"), REAL_HANOI_VALUE_REPLIES)
def test_the_small_models_bare_value_verdicts_parse(reply, value):
    pack = TextArenaDomain(TextArenaSettings()).describe().prompt_pack
    assert parse_value(reply, pack.value_pattern, pack.value_min, pack.value_max) == pytest.approx(value)
