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
