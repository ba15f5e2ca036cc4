"""`lats runs list | show | export` over a SQLite run store, as a user types them."""

from __future__ import annotations

import asyncio
import json

import pytest
from click.testing import CliRunner

from lats.cli import main
from lats_pb import planner_pb2 as pb
from lats_pb import environment_pb2 as env_pb
from planner.runs import open_run_store

pytestmark = pytest.mark.timeout(60)


def solved_run() -> pb.Run:
    run = pb.Run(run_id="3fa2c0ffee", status=pb.RUN_STATUS_SOLVED, task_id="game24/900",
                 created_at="2026-11-23T10:00:00+00:00", owner="host:1:abc")
    r = run.result
    r.environment, r.method, r.model, r.reward_mode = ("game24@1.0.0", "lats", "scripted:x",
                                                      env_pb.REWARD_MODE_NONE)
    r.status, r.answer_node_id, r.second_term = pb.RUN_STATUS_SOLVED, "0.1.0", "sc"
    r.config.n_samples, r.config.iterations, r.config.value_weight = 2, 10, 0.5
    r.usage.calls, r.usage.prompt_tokens, r.usage.completion_tokens = 14, 6000, 200
    r.scored, r.score.score, r.score.success = True, 1.0, True
    r.score.details = "solved: 6 * 5 - 10 + 4 = 24"
    run.nodes.add(id="0", observation="4 5 6 10", visits=3, value=0.333, lm_score=-1)
    run.nodes.add(id="0.0", parent_id="0", depth=1, action="4 + 5 = 9 (left: 6 9 10)",
                  observation="left: 6 9 10", visits=2, value=0.319, lm_score=0.78, sc_score=0.5,
                  sample_count=1)
    run.nodes.add(id="0.0.0", parent_id="0.0", depth=2, action="1 * 6 = 6", terminal=True,
                  observation="Dead end", visits=1, value=0.0, lm_score=-1, sc_score=1.0)
    run.nodes.add(id="0.1", parent_id="0", depth=1, action="6 * 5 = 30 (left: 4 10 30)",
                  observation="left: 4 10 30", visits=2, value=0.736, lm_score=0.44, sc_score=0.5)
    run.nodes.add(id="0.1.0", parent_id="0.1", depth=2, action="Answer: 6 * 5 - 10 + 4 = 24",
                  observation="Correct", terminal=True, reward=1, visits=1, value=1.0,
                  lm_score=-1, sc_score=1.0)
    run.reflection_notes.add(node_id="0.0.0", text="Start with 6 * 5 next time.")
    return run


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "runs.sqlite3"

    async def fill():
        store = open_run_store(str(path))
        await store.open()
        await store.put(solved_run())
        other = solved_run()
        other.run_id, other.status, other.result.method = "3fb0", pb.RUN_STATUS_FAILED, "react"
        other.created_at = "2026-11-23T11:00:00+00:00"
        await store.put(other)
        await store.close()

    asyncio.run(fill())
    return str(path)


def lats(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_list_prints_a_table_and_filters(db):
    result = lats("runs", "list", "--db", db)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any("3fb0" in line and "failed" in line and "react" in line for line in lines)
    assert any("3fa2c0ffee" in line and "solved" in line and "scripted:x" in line
               and "n=2 k=10" in line for line in lines)
    order = [i for i, line in enumerate(lines) if "3fb0" in line or "3fa2c0ffee" in line]
    assert "3fb0" in lines[order[0]]                        # newest first
    solved = lats("runs", "list", "--db", db, "--status", "solved", "--json")
    assert [json.loads(line)["run_id"] for line in solved.output.splitlines()] == ["3fa2c0ffee"]
    assert "no runs match" in lats("runs", "list", "--db", db, "--env", "webshop").output


def test_show_draws_the_tree_with_values_marks_and_the_score(db):
    result = lats("runs", "show", "--db", db, "3fa2")          # a unique prefix
    assert result.exit_code == 0, result.output
    out = result.output
    assert "run 3fa2c0ffee SOLVED" in out and "V = 0.5·LM + 0.5·SC" in out
    assert "score (hidden ground truth) 1 success=True" in out
    assert "★ 0.1.0" in out and "■ terminal ✓" in out
    assert "0.0 ×1 '4 + 5 = 9 (left: 6 9 10)'  N=2 V=0.319 LM=0.78 SC=0.50" in out
    assert "0.0.0" in out and "✎" in out
    assert "on 0.0.0: Start with 6 * 5 next time." in out
    shallow = lats("runs", "show", "--db", db, "3fa2c0ffee", "--depth", "1").output
    assert "0.1.0" not in shallow and "… 1 children below depth 1" in shallow


def test_export_writes_the_whole_run_as_json(db, tmp_path):
    result = lats("runs", "export", "--db", db, "3fa2c0ffee")
    run = json.loads(result.output)
    assert run["run_id"] == "3fa2c0ffee" and len(run["nodes"]) == 5
    assert run["nodes"][1]["lm_score"] == 0.78 and run["result"]["answer_node_id"] == "0.1.0"
    target = tmp_path / "run.json"
    lats("runs", "export", "--db", db, "3fa2c0ffee", "-o", str(target))
    assert json.loads(target.read_text()) == run


@pytest.mark.parametrize("args, message", [
    (("show", "3f"), "'3f' names several runs (3fb0, 3fa2c0ffee)"),
    (("show", "zzz"), "no run 'zzz'"),
    (("export", "zzz"), "no run 'zzz'"),
])
def test_unknown_or_ambiguous_runs_say_what_to_do(db, args, message):
    result = CliRunner().invoke(main, ["runs", args[0], "--db", db, *args[1:]])
    assert result.exit_code == 1 and message in result.output


def test_a_missing_store_is_named(tmp_path):
    result = CliRunner().invoke(main, ["runs", "list", "--db", str(tmp_path / "none.sqlite3")])
    assert result.exit_code == 1 and "no run store at" in result.output
    assert not (tmp_path / "none.sqlite3").exists()
