"""The frozen "hard" split (lats_data/lats_mbpp_hard.json) and the selection that made it.

The split is served by the code runner as `lats-mbpp-hard`: the listed
mbpp-sanitized problems, in the list's order. The selection
(bench/hard_split.py) is checked on synthetic greedy steps: no model runs here.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from env_servers.coderunner.tasks import TaskSet
from lats_runtime.resources import data_file

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "hard_split.py"
spec = importlib.util.spec_from_file_location("hard_split", SCRIPT)
hard_split = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hard_split)

FROZEN = json.loads(data_file("lats_mbpp_hard.json").read_text(encoding="utf-8"))
IDS = FROZEN["task_ids"]


def test_the_frozen_file_states_its_provenance():
    assert FROZEN["split"] == "lats-mbpp-hard"
    for key in ("source", "criterion", "model", "mode", "command", "bench_commands",
                "scanned", "commit", "date", "example_note"):
        assert FROZEN[key], key
    assert FROZEN["mode"] == "none" and "1.5b" in FROZEN["model"]
    assert re.fullmatch(r"[0-9a-f]{40}", FROZEN["commit"])
    assert FROZEN["failing"] >= len(IDS) and FROZEN["scanned"] >= FROZEN["last_chosen_at"]


def test_at_most_40_distinct_sanitized_ids_each_a_lats_mbpp_problem():
    tasks = TaskSet()
    assert 0 < len(IDS) <= 40 and len(set(IDS)) == len(IDS)
    lats = {int(re.match(r"mbpp_(\d+)_", p.task_id).group(1)): p
            for p in tasks.problems("lats-mbpp")}
    sanitized = {p.task_id: p for p in tasks.problems("mbpp-sanitized")}
    for task_id in IDS:
        number = int(re.fullmatch(r"Mbpp/(\d+)", task_id).group(1))
        assert number in lats and task_id in sanitized
        assert lats[number].entry_point == sanitized[task_id].entry_point
    order = [f"Mbpp/{n}" for n in lats]          # lats-mbpp file order
    assert [order.index(t) for t in IDS] == sorted(order.index(t) for t in IDS)


def test_the_split_serves_the_sanitized_problems_in_the_lists_order():
    tasks = TaskSet()
    assert "lats-mbpp-hard" in tasks.splits
    assert tasks.ids("lats-mbpp-hard") == IDS
    sanitized = {p.task_id: p for p in tasks.problems("mbpp-sanitized")}
    assert all(p is sanitized[p.task_id] for p in tasks.problems("lats-mbpp-hard"))
    fresh = TaskSet()            # the subset first: its base loads once, ids stay unique
    assert fresh.ids("lats-mbpp-hard") == IDS and fresh.get(IDS[0]) is fresh.problems(
        "lats-mbpp-hard")[0]
    assert len(fresh.ids("mbpp-sanitized")) == 427


def test_list_tasks_and_reset_through_the_domain(domain):
    assert "lats-mbpp-hard" in domain.describe().splits
    assert domain.list_tasks("lats-mbpp-hard") == IDS
    for task_id in IDS:
        outcome = domain.reset(task_id, 0, {})
        problem = domain.tasks.get(task_id)
        assert outcome.observation == problem.prompt.strip("\n")
        assert outcome.state["tests_source"] == "docstring" and outcome.state["tests"]


def test_a_subset_list_with_an_unknown_id_is_refused(tmp_path):
    name = "sanitized-mbpp.json"
    (tmp_path / name).write_bytes(data_file(name).read_bytes())
    (tmp_path / "lats_mbpp_hard.json").write_text(json.dumps({"task_ids": ["Mbpp/1"]}))
    with pytest.raises(ValueError, match="Mbpp/1"):
        TaskSet(tmp_path).ids("lats-mbpp-hard")


# --- the selection, on synthetic greedy steps ---------------------------------------

EXAMPLE = "assert f(3) == 27"


def step(task_id, reward, observation="", examples=(EXAMPLE,), **extra):
    return dict(task_id=task_id, examples=list(examples), reward=reward,
                invalid_action=extra.pop("invalid_action", False), observation=observation,
                **extra)


def report(passed=(), failed=()):
    return ("Tested passed:\n" + "".join(f"{t}\n" for t in passed) + "\nTests failed:\n"
            + "".join(f"{t} # output: 0, expected: 1\n" for t in failed)).rstrip("\n")


def test_a_passing_greedy_program_is_not_chosen():
    steps = [step("Mbpp/1", 1.0, report([EXAMPLE, "assert f(1) == 1"]))]
    assert hard_split.select(steps, 40) == ([], [])


def test_a_failing_example_is_chosen_a_failing_model_assert_alone_is_not():
    steps = [step("Mbpp/1", 0.5, report(["assert f(1) == 1"], [EXAMPLE])),
             step("Mbpp/2", 0.5, report([EXAMPLE], ["assert f(2) == 9"]))]
    assert hard_split.select(steps, 40) == (["Mbpp/1"], ["Mbpp/1"])


def test_no_program_an_invalid_step_or_a_program_that_did_not_run_are_chosen():
    steps = [step("Mbpp/1", None),
             step("Mbpp/2", 0.0, "No code found in the reply", invalid_action=True),
             step("Mbpp/3", 0.0, "The program timed out (the tests ran longer than 5 s).\n\n"
                  + report([], [EXAMPLE]))]
    assert hard_split.select(steps, 40)[1] == ["Mbpp/1", "Mbpp/2", "Mbpp/3"]


def test_problems_without_examples_are_skipped():
    steps = [step("Mbpp/1", 0.0, report([], ["assert f(1) == 1"]), examples=())]
    assert hard_split.select(steps, 40) == ([], [])


def test_the_hidden_verdict_is_never_read():
    """A step whose program passed the hidden tests but failed the example is chosen."""
    steps = [step("Mbpp/1", 0.0, report([], [EXAMPLE]), success=True, status="solved"),
             step("Mbpp/2", 1.0, report([EXAMPLE]), success=False)]
    assert hard_split.select(steps, 40)[1] == ["Mbpp/1"]


def test_the_first_ones_in_order_are_chosen():
    steps = [step(f"Mbpp/{n}", 0.0, report([], [EXAMPLE])) for n in range(5)]
    failing, chosen = hard_split.select(steps, 3)
    assert len(failing) == 5 and chosen == ["Mbpp/0", "Mbpp/1", "Mbpp/2"]


def test_the_statement_example_is_told_apart_from_a_longer_passing_test():
    steps = [step("Mbpp/1", 0.5, report([EXAMPLE + " or True"], [EXAMPLE]))]
    assert hard_split.select(steps, 40)[1] == ["Mbpp/1"]
