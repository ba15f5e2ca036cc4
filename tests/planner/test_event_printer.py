"""What `lats solve` prints names the value's second term as the run used it."""

import io

from lats_pb import planner_pb2 as pb
from planner.event_printer import EventPrinter


def _printed(second_term: str) -> str:
    out = io.StringIO()
    printer = EventPrinter(out)
    printer.print(pb.SearchEvent(run_id="r1", started=pb.RunStarted(
        environment="coderunner", task_id="t", second_term=second_term)))
    printer.print(pb.SearchEvent(run_id="r1", node_evaluated=pb.Node(
        id="n1", depth=1, value=0.55, lm_score=0.8,
        sc_score=0.25 if second_term != "reward" else 0.0,
        reward=0.25 if second_term == "reward" else 0.0)))
    return out.getvalue().splitlines()[-1]


def test_a_reward_valued_run_labels_the_second_term_reward():
    assert _printed("reward").strip() == "n1 value 0.55 (lm 0.80 reward 0.25)"


def test_a_self_consistency_run_labels_it_sc():
    assert _printed("sc").strip() == "n1 value 0.55 (lm 0.80 sc 0.25)"
    assert _printed("").strip() == "n1 value 0.55 (lm 0.80 sc 0.25)"


def test_the_tests_a_search_uses_and_the_asserts_left_out_are_shown_with_why():
    from google.protobuf import struct_pb2

    info = struct_pb2.Struct()
    info.update({"internal_tests": ["assert add(1, 2) == 3"], "tests_source": "docstring+model",
                 "left_out_tests": ["assert add3Numbers(1, 2, 3) == 6  # does not call add"]})
    out = io.StringIO()
    EventPrinter(out).print(pb.SearchEvent(run_id="r1", started=pb.RunStarted(
        environment="coderunner", task_id="t", reset_info=info)))
    lines = out.getvalue().splitlines()
    assert lines[-4:] == ["internal tests (1):", "  | assert add(1, 2) == 3",
                          "left out tests (1):",
                          "  | assert add3Numbers(1, 2, 3) == 6 # does not call add"]
