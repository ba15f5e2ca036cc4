"""Game-24 tasks, splits, inline tasks, options, scoring and Describe pieces."""

from __future__ import annotations

import csv

import pytest

from env_servers.core import InvalidRequest, InvalidTask, TaskNotFound
from env_servers.core.domain_settings import settings_from_environment
from env_servers.game24 import Game24Domain
from env_servers.game24.settings import Game24Settings
from lats_runtime.resources import data_file

DATA = data_file("24.csv")


def test_splits_follow_the_tree_of_thoughts_test_rows(game24):
    test, train, every = (game24.list_tasks(s) for s in ("test", "train", "all"))
    assert test == [f"game24/{row}" for row in range(900, 1000)]
    assert len(every) == 1362 and len(train) == 1262
    assert set(test).isdisjoint(train) and set(test) | set(train) == set(every)
    assert game24.describe().default_split == "test"


def test_task_ids_are_rows_of_the_csv(game24):
    with open(DATA, newline="") as handle:
        rows = [row["Puzzles"] for row in csv.DictReader(handle)]
    outcome = game24.reset("game24/900", 0, {})
    assert outcome.observation == rows[900] == "4 5 6 10"
    assert outcome.task_id == "game24/900"
    assert game24.reset("game24/1076", 0, {}).observation == "4 4 6 8"


@pytest.mark.parametrize("task", ["game24/1362", "game24/-1", "game24/abc", "24/900", ""])
def test_unknown_tasks_are_not_found(game24, task):
    with pytest.raises(TaskNotFound, match="ListTasks"):
        game24.reset(task, 0, {})


def test_unknown_split_is_invalid(game24):
    with pytest.raises(InvalidRequest, match="unknown split"):
        game24.list_tasks("validation")


def test_inline_tasks(game24):
    outcome = game24.reset({"numbers": [4.0, 4.0, 6.0, 8.0]}, 0, {})
    assert outcome.observation == "4 4 6 8" and outcome.task_id == "inline:4 4 6 8"
    assert game24.reset({"numbers": "1 2 3 4"}, 0, {}).observation == "1 2 3 4"


@pytest.mark.parametrize(
    "spec",
    [{}, {"numbers": [4]}, {"numbers": [1.5, 2, 3, 4]}, {"numbers": ["a"]},
     {"numbers": [4, 4, 6, 8], "extra": 1}, {"numbers": list(range(1, 9))},
     {"numbers": [-1, 2, 3, 4]}, {"numbers": 5}],
)
def test_bad_inline_tasks_are_invalid(game24, spec):
    with pytest.raises(InvalidTask):
        game24.reset(spec, 0, {})


def test_options_are_rejected(game24):
    with pytest.raises(InvalidRequest, match="no options"):
        game24.reset("game24/900", 0, {"colour": "blue"})


def test_score_follows_the_episode(game24):
    state = game24.reset("game24/1076", 0, {}).state
    assert game24.score(state).success is False
    assert game24.score(state).details == "not solved: the episode has not reached an answer"
    solved = game24.step(state, "Answer: (6 - 4) * (4 + 8) = 24").state
    score = game24.score(solved)
    assert (score.score, score.success, dict(score.metrics)) == (1.0, True, {"solved": 1.0})


def test_grammar_examples_solve_their_puzzle(game24):
    state = game24.reset("game24/1076", 0, {}).state
    outcome = None
    for action in game24.describe().action_grammar.examples:
        outcome = game24.step(state, action)
        assert not outcome.invalid_action, outcome.observation
        state = outcome.state
    assert outcome.terminated and outcome.reward == 1.0


def test_describe_pieces(game24):
    description = game24.describe()
    assert description.reward_mode == "none" and description.max_steps == 8
    assert description.blob_snapshots and description.capabilities.score
    assert description.capabilities.inline_tasks
    assert (description.reward_range.min, description.reward_range.max) == (0, 1)


def test_data_path_can_be_configured(tmp_path):
    data = tmp_path / "mini.csv"
    data.write_text("Rank,Puzzles\n1,1 2 3 4\n2,4 4 6 8\n")
    domain = Game24Domain(settings_from_environment(Game24Settings, {"LATS_GAME24_DATA": str(data)}))
    assert domain.list_tasks("all") == ["game24/0", "game24/1"]
    assert domain.list_tasks("test") == []
