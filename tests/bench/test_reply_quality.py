"""bench/reply_quality.py: invalid steps, value parses and copied reflections, per method."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path

from lats_pb import planner_pb2 as pb
from planner.runs import open_run_store

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "reply_quality.py"
spec = importlib.util.spec_from_file_location("reply_quality", SCRIPT)
reply_quality = importlib.util.module_from_spec(spec)
sys.modules["reply_quality"] = reply_quality
spec.loader.exec_module(reply_quality)

EXAMPLE = ("I searched a title that does not exist twice instead of one the suggestions "
           "offered. Next time I will search The Prince & Me and look up \"directed\".")


def run(run_id, method, nodes, value_calls=0, failures=0, reflections=(), merged=0):
    result = pb.RunResult(method=method, value_parse_failures=failures, repeats_merged=merged)
    if value_calls:
        result.calls_by_kind["value"] = value_calls
    return pb.Run(run_id=run_id, status=pb.RUN_STATUS_FAILED, task_id="t", result=result,
                  nodes=[pb.Node(id="0")] + nodes,
                  reflection_notes=[pb.ReflectionNote(node_id="0.0", text=t) for t in reflections])


def step(node_id, invalid=False, observation="ok"):
    return pb.Node(id=node_id, parent_id=node_id.rsplit(".", 1)[0], invalid_action=invalid,
                   observation=observation)


def test_reasons_fold_quoted_arguments_and_numbers_into_one_class():
    assert (reply_quality.reason("Invalid action! there is no [Blue Size 7] on this page. Try x")
            == reply_quality.reason("Invalid action! there is no [red] on this page."))
    assert (reply_quality.reason("Invalid action: 11 is not among the numbers left (1 121).")
            == reply_quality.reason("Invalid action: 3 is not among the numbers left (2 4)."))
    assert (reply_quality.reason("Invalid action: no action found. End your reply with one")
            == "Invalid action: no action found")


def test_a_reflection_copies_an_example_only_with_a_long_common_run_of_words():
    copied = ("I searched a title that does not exist twice instead of one the suggestions "
              "offered. Next time I will search Ichitaka Seto.")
    own = "I answered Paris but the page said Lyon. Next time I will search Lyon first."
    assert reply_quality.copies_example(copied, [EXAMPLE])
    assert not reply_quality.copies_example(own, [EXAMPLE])


def test_figures_per_method_from_a_real_store(tmp_path):
    location = str(tmp_path / "runs.sqlite3")

    async def fill_and_measure():
        store = open_run_store(location)
        await store.open()
        await store.put(run("a", "lats", [
            step("0.0"), step("0.1", True, "Invalid action: no action found. End it."),
            step("0.0.0", True, "Invalid action: no action found. Write one."),
            step("0.0.1")], value_calls=4, failures=1, merged=3,
            reflections=["I searched a title that does not exist twice instead of one the "
                         "suggestions offered. Next time I will search X.",
                         "I gave up too early. Next time I will look up the year."]))
        await store.put(run("b", "react", [step("0.0"), step("0.0.0")]))
        await store.close()
        return await reply_quality.measure(location)

    by_method = asyncio.run(fill_and_measure())
    lats, react = by_method["lats"], by_method["react"]
    assert (lats.runs, lats.steps, lats.merged, lats.invalid, lats.value_calls,
            lats.value_failures) == (1, 4, 3, 2, 4, 1)
    assert lats.reasons == {"Invalid action: no action found": 2}
    assert (react.steps, react.invalid) == (2, 0)
    lines = reply_quality.report(by_method, [EXAMPLE])
    row = next(line for line in lines if line.startswith("lats"))
    assert row.split() == ["lats", "1", "4", "3", "50%", "4", "75%", "2", "100%", "50%"]
    assert "  lats: 2 x Invalid action: no action found" in lines
