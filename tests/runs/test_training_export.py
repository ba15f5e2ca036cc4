"""`lats runs export --format trl`: a real search's tree as TRL-shaped training data.

Three services (Game of 24, the scripted gateway, the planner) run the search
of tests/e2e: its first root child (4 + 5) is valued higher by the model but
dead-ends, the second (6 * 5) solves the puzzle. The export is read back with
the `datasets` package, offline, and the preference pair at the root chooses
by environment reward, against the model's own value. TRL's own data utilities
(trl.data_utils, installed without torch: pyproject's trl-data extra) take
every file as written.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from lats.cli import main
from lats.run_inspection.training import TRL_COLUMNS, TRL_KEYS
from lats_runtime.processes import running_services
from planner.runs import open_run_store

SCRIPT = Path(__file__).resolve().parents[1] / "e2e" / "game24_4_5_6_10.json"
TASK = "game24/900"
RUN = "export-me"
WAY = ["6 * 5 = 30 (left: 4 10 30)", "30 - 10 = 20 (left: 4 20)", "20 + 4 = 24 (left: 24)",
       "Answer: 6 * 5 - 10 + 4 = 24"]


@pytest.fixture(scope="module")
def searched(tmp_path_factory):
    db = tmp_path_factory.mktemp("planner") / "runs.sqlite3"
    specs = [
        ("env", ["env", "game24"]),
        ("gateway", ["gateway", "--backend", "scripted", "--script", str(SCRIPT)]),
        ("planner", ["planner", "--gateway", "{gateway}", "--db", str(db)]),
    ]
    with running_services(specs) as running:
        out = subprocess.run(
            [sys.executable, "-m", "lats", "solve", "--planner", running["planner"].address,
             "--env", running["env"].address, "--task", TASK, "--run-id", RUN, "--method", "lats_paper", "-n", "2",
             "-k", "10", "-d", "4", "--seed", "7"], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0 and "== SOLVED" in out.stdout, out.stdout + out.stderr
    return str(db)


@pytest.fixture(scope="module")
def exported(searched, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("export") / "trl"
    result = CliRunner().invoke(main, ["runs", "export", "--db", searched, "--format", "trl",
                                       "-o", str(out), RUN[:6]], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "wrote 1 run(s)" in result.output and "preference pairs" in result.output
    return out


def read_back(path: Path, tmp_path: Path, monkeypatch):
    """The file as a Hugging Face dataset, loaded with the network forbidden."""
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    from datasets import load_dataset

    return load_dataset("json", data_files={"train": str(path)}, split="train",
                        cache_dir=str(tmp_path / "cache"))


def test_the_planner_keeps_every_expansion_call_with_the_run(searched):
    async def read():
        store = open_run_store(searched)
        await store.open()
        try:
            return await store.get(RUN), await store.calls(RUN)
        finally:
            await store.close()

    run, calls = asyncio.run(read())
    nodes = {node.id for node in run.nodes}
    assert calls and [call.index for call in calls] == list(range(len(calls)))
    assert {call.purpose for call in calls} == {"act"}
    assert {call.node_id for call in calls} <= nodes
    root = next(call for call in calls if call.node_id == "0")
    assert list(root.completions) == ["4 + 5 = 9 (left: 6 9 10)", "6 * 5 = 30 (left: 4 10 30)"]
    roles = [m.role for m in root.prompt]    # the instructions, the few-shot turns, the task
    assert roles[0] == "system" and roles[-1] == "user" and "assistant" in roles
    assert root.prompt[-1].content == "Input: 4 5 6 10" and root.model.startswith("scripted")


def test_expansions_read_back_as_prompt_completion_with_rewards_and_values(exported, tmp_path,
                                                                          monkeypatch):
    rows = read_back(exported / "expansions.jsonl", tmp_path, monkeypatch)
    assert {"prompt", "completion", "reward", "outcome", "value", "lm_score", "visits",
            "on_answer_path", "node_id", "child_id", "run_id"} <= set(rows.column_names)
    first = rows[0]
    roles = [m["role"] for m in first["prompt"]]
    assert roles[0] == "system" and roles[-1] == "user" and "assistant" in roles
    assert first["completion"] == [{"role": "assistant", "content": first["completion"][0]["content"]}]
    by_action = {(r["node_id"], r["action"]): r for r in rows}
    dead = by_action[("0", "4 + 5 = 9 (left: 6 9 10)")]
    good = by_action[("0", WAY[0])]
    assert (dead["outcome"], good["outcome"]) == (0.0, 1.0)
    assert dead["lm_score"] > good["lm_score"]            # the model preferred the dead end
    assert good["on_answer_path"] and not dead["on_answer_path"]
    answer = by_action[("0.1.0.0", WAY[3])]
    assert answer["terminal"] and answer["reward"] == 1.0 and answer["child_id"] == "0.1.0.0.0"
    assert all(r["run_id"] == RUN and r["environment"].startswith("game24@") for r in rows)


def test_preferences_pair_siblings_by_environment_reward_only(exported, tmp_path, monkeypatch):
    pairs = read_back(exported / "preferences.jsonl", tmp_path, monkeypatch)
    assert {"prompt", "chosen", "rejected", "chosen_reward", "rejected_reward"} <= set(
        pairs.column_names)
    root = [p for p in pairs if p["node_id"] == "0"]
    assert len(root) == 1
    assert root[0]["chosen"] == [{"role": "assistant", "content": WAY[0]}]
    assert root[0]["rejected"] == [{"role": "assistant", "content": "4 + 5 = 9 (left: 6 9 10)"}]
    assert (root[0]["chosen_reward"], root[0]["rejected_reward"]) == (1.0, 0.0)
    assert "Input: 4 5 6 10" in root[0]["prompt"][-1]["content"]
    # Below 4 + 5 one sibling dead-ends and the other was never played out: no label, no pair.
    assert not [p for p in pairs if p["node_id"] == "0.0"]
    assert all(p["chosen_reward"] > p["rejected_reward"] for p in pairs)
    assert "label" not in pairs.column_names            # TRL's key for unpaired rows only


def test_unpaired_rows_are_the_pairs_siblings_one_by_one(exported, tmp_path, monkeypatch):
    rows = read_back(exported / "unpaired.jsonl", tmp_path, monkeypatch)
    assert rows.features["label"].dtype == "bool"
    root = {r["completion"][0]["content"]: r for r in rows if r["node_id"] == "0"}
    assert set(root) == {WAY[0], "4 + 5 = 9 (left: 6 9 10)"}
    assert root[WAY[0]]["label"] and not root["4 + 5 = 9 (left: 6 9 10)"]["label"]
    assert (root[WAY[0]]["outcome"], root["4 + 5 = 9 (left: 6 9 10)"]["outcome"]) == (1.0, 0.0)
    assert all(r["label"] == (r["outcome"] == r["best_sibling_outcome"]) for r in rows)


def test_the_answer_path_and_the_run_summary(exported, tmp_path, monkeypatch):
    steps = read_back(exported / "answers.jsonl", tmp_path, monkeypatch)
    assert [s["completion"][0]["content"] for s in steps] == WAY
    assert [s["step"] for s in steps] == [1, 2, 3, 4] and all(s["success"] for s in steps)
    summary, = [json.loads(line) for line in (exported / "runs.jsonl").read_text().splitlines()]
    assert summary["run_id"] == RUN and summary["status"] == "solved" and summary["success"]
    assert summary["actions"] == WAY and summary["calls"] > 0 and summary["prompt_tokens"] > 0
    assert summary["schema_version"] == 1


def test_export_selects_runs_by_filter_and_says_what_is_wrong(searched, tmp_path):
    runner = CliRunner()
    out = tmp_path / "all"
    every = runner.invoke(main, ["runs", "export", "--db", searched, "--format", "trl", "-o",
                                 str(out), "--env", "game24"], catch_exceptions=False)
    assert every.exit_code == 0 and (out / "preferences.jsonl").stat().st_size > 0
    none = runner.invoke(main, ["runs", "export", "--db", searched, "--format", "trl", "-o",
                                str(tmp_path / "none"), "--env", "webshop"])
    assert none.exit_code == 1 and "no runs match" in none.output
    no_dir = runner.invoke(main, ["runs", "export", "--db", searched, "--format", "trl", RUN])
    assert no_dir.exit_code == 2 and "-o DIRECTORY" in no_dir.output
    two_json = runner.invoke(main, ["runs", "export", "--db", searched, RUN, RUN])
    assert two_json.exit_code == 2 and "exactly one RUN" in two_json.output


# ---------------------------------------------------------------- TRL itself

TRL_ABSENT = ("TRL's data utilities are not installed: pip install 'lats-platform[trl-data]' "
              "and pip install --no-deps trl==1.16.0 (make setup does both)")
# Columns TRL's trainers read besides the dataset type's keys: none of ours may be one.
TRL_SPECIAL = {"messages", "text", "tools", "chat_template_kwargs", "image", "images"}


def trl_data_utils():
    try:
        import trl.data_utils
    except ImportError:
        if os.environ.get("CI"):            # the test environment installs it: never skip there
            pytest.fail(TRL_ABSENT)
        pytest.skip(TRL_ABSENT)
    return trl.data_utils


def chat_tokenizer():
    """A tokenizer with a chat template, built here (no model hub): TRL renders our
    rows with it as it would with a model's."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    words = Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    words.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=words, unk_token="[UNK]",
                                        eos_token="[UNK]")
    tokenizer.chat_template = (
        "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>\n{% endfor %}"
        "{% if add_generation_prompt %}<|assistant|>{% endif %}")
    return tokenizer


@pytest.mark.parametrize("name", ["expansions", "preferences", "unpaired", "answers"])
def test_trl_takes_each_file_as_written(exported, tmp_path, monkeypatch, name):
    """TRL's own checks, on every row as exported: the file is exactly one dataset
    type (TRL's apply_chat_template raises KeyError otherwise), conversational,
    and renders with a chat template into prompt and completion text."""
    data_utils = trl_data_utils()
    rows = read_back(exported / f"{name}.jsonl", tmp_path, monkeypatch)
    assert len(rows) > 0
    assert TRL_KEYS & set(rows.column_names) == set(TRL_COLUMNS[name])
    assert not TRL_SPECIAL & set(rows.column_names)
    assert all(data_utils.is_conversational(row) for row in rows)
    rendered = rows.map(data_utils.maybe_apply_chat_template,
                        fn_kwargs={"processing_class": chat_tokenizer()})
    first = rendered[0]
    assert first["prompt"].startswith("<|system|>") and first["prompt"].endswith("<|assistant|>")
    for key in set(TRL_COLUMNS[name]) - {"prompt", "label"}:
        assert first[key] == rows[0][key][0]["content"] + "<|end|>\n"
    assert rendered.column_names == rows.column_names     # the plain facts ride along


def test_trl_rejects_the_old_pair_rows_so_the_check_is_real(exported, tmp_path, monkeypatch):
    data_utils = trl_data_utils()
    pair = read_back(exported / "preferences.jsonl", tmp_path, monkeypatch)[0]
    with pytest.raises(KeyError, match="Invalid keys"):
        data_utils.maybe_apply_chat_template({**pair, "label": "outcome"}, chat_tokenizer())


def test_trl_unpairs_our_pairs_into_our_unpaired_rows(exported, tmp_path, monkeypatch):
    """KTO's input: TRL's unpair_preference_dataset of preferences.jsonl gives the
    rows of unpaired.jsonl (each sibling once; here no outcome lies between two)."""
    data_utils = trl_data_utils()
    pairs = read_back(exported / "preferences.jsonl", tmp_path, monkeypatch)
    ours = read_back(exported / "unpaired.jsonl", tmp_path, monkeypatch)
    theirs = data_utils.unpair_preference_dataset(pairs)
    assert set(theirs.column_names) >= {"prompt", "completion", "label"}

    def key(row):
        return (row["run_id"], row["call_index"], row["completion"][0]["content"], row["label"])

    assert {key(row) for row in theirs} == {key(row) for row in ours}
