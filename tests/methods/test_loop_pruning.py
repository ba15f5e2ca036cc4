"""prune_loops: a step back to a state its path had left (equal state keys, the
root's from Reset) is a loop. It is valued 0 without a model call, never expanded,
and a rollout stops there; a step that stays (a thought: WebShop's think[...]
answers "OK." on the same page) is no loop; without the switch nothing is."""

from __future__ import annotations

import json
from collections import defaultdict
from itertools import cycle

import pytest
from lats_pb import environment_pb2 as env_pb

from planner.environment import Environment, EnvState, Started, Stepped, TaskRef

from tests.methods.fakes import CallModel, run_method, traj
from tests.planner.fakes import description


class PageEnv(Environment):
    """An action is `thought|PAGE`: it opens PAGE (the state is the open page alone,
    as on a web shop); `win` ends the episode. Reset opens `start`."""

    def __init__(self, simulate: bool = False):
        desc = description()
        desc.facts.state_keys = True
        desc.prompt_pack.search_hints.CopyFrom(env_pb.SearchHints(
            simulate=simulate, max_depth=4, value_weight=1.0))
        self.description = desc

    async def describe(self):
        return self.description

    async def start(self, task: TaskRef) -> Started:
        return Started("start", "t", EnvState(env_pb.Snapshot(blob=b'"start"')),
                       state_key="page:start")

    async def transition(self, state: EnvState, actions) -> list[Stepped]:
        results = []
        for action in actions:
            page = action.split("|")[-1]
            results.append(Stepped(f"page {page}", 1.0 if page == "win" else 0.0,
                                   page == "win", False, False,
                                   EnvState(env_pb.Snapshot(blob=json.dumps(page).encode())),
                                   state_key=f"page:{page}"))
        return results

    async def score(self, state: EnvState):
        return env_pb.ScoreResponse(score=0.0, success=False)


def proposing(by_trajectory: dict[str, list[str]]):
    """Act replies by the trajectory shown (in turn, over every call there); `go|win`
    where none is given; value replies 5 of 10."""
    turns = defaultdict(lambda: cycle(["go|win"]))
    for trajectory, texts in by_trajectory.items():
        turns[trajectory] = cycle(texts)

    def answer(purpose, prompt, params):
        if purpose == "value":
            return ["score is 5"] * params.n
        if purpose != "act":
            return ["a lesson"] * params.n
        return [next(turns[traj(prompt)]) for _ in range(params.n)]

    return CallModel(answer)


def by_action(node):
    return {child.action: child for child in node.children}


@pytest.mark.parametrize("method", ["lats", "lats_paper"])
def test_a_step_back_to_the_start_is_a_loop_valued_0_without_a_call(method):
    model = proposing({"": ["a|A"], "[a|A]": ["b|start", "c|B", "d|C"]})
    found, _, _ = run_method(method, PageEnv(simulate=True), model, n_samples=3,
                             iterations=1, prune_loops=True)
    a = by_action(found.root)["a|A"]
    children = by_action(a)
    loop = children["b|start"]
    assert loop.returns_to is found.root and loop.value == 0.0 and loop.exhausted
    assert children["c|B"].returns_to is None and children["d|C"].returns_to is None
    valued = [traj(p) for p in model.prompts("value")]
    assert not any(t.startswith("[a|A][b|start]") for t in valued), "no value call for it"
    assert any(t.startswith("[a|A][c|B]") for t in valued)
    assert not any(traj(p).startswith("[a|A][b|start]") for p in model.prompts("act")), \
        "a loop is never expanded"


def test_a_step_back_to_an_ancestor_is_a_loop_and_ends_the_rollout():
    model = proposing({"": ["a|A"], "[a|A]": ["x|start", "y|B"], "[a|A][y|B]": ["z|A"]})
    found, _, _ = run_method("lats_paper", PageEnv(simulate=True), model, n_samples=2,
                             iterations=1, prune_loops=True)
    a = by_action(found.root)["a|A"]
    assert {child.action: child.returns_to for child in a.children} == {
        "x|start": found.root, "y|B": None}
    back = by_action(by_action(a)["y|B"])["z|A"]
    assert back.returns_to is a and back.exhausted and back.value == 0.0
    assert not any(traj(p).startswith("[a|A][x|start]") or traj(p).startswith("[a|A][y|B][z|A]")
                   for p in model.prompts("act")), "the rollout stopped at the loops"


def test_a_step_that_stays_in_its_state_is_no_loop():
    model = proposing({"": ["a|A"], "[a|A]": ["think|A"], "[a|A][think|A]": ["more|A"]})
    found, _, _ = run_method("lats_paper", PageEnv(simulate=True), model, n_samples=1,
                             iterations=1, prune_loops=True)
    thought = by_action(by_action(found.root)["a|A"])["think|A"]
    more = by_action(thought)["more|A"]
    assert thought.returns_to is None and more.returns_to is None, "staying is no loop"
    assert by_action(more)["go|win"].terminal, "the rollout went on through them"


def test_a_search_whose_every_branch_loops_ends_exhausted():
    model = proposing({"": ["a|A"], "[a|A]": ["b|start", "c|start"]})
    found, outcome, _ = run_method("lats_paper", PageEnv(simulate=True), model, n_samples=2,
                                   iterations=5, prune_loops=True)
    a = by_action(found.root)["a|A"]
    assert [c.returns_to for c in a.children] == [found.root, found.root]
    assert found.root.exhausted and "exhausted" in outcome.reason
    assert model.purposes().count("act") == 2


def test_without_the_switch_a_step_back_is_an_ordinary_child():
    model = proposing({"": ["a|A"], "[a|A]": ["b|start", "c|B", "d|C"]})
    found, _, _ = run_method("lats_paper", PageEnv(), model, n_samples=3, iterations=2)
    back = by_action(by_action(found.root)["a|A"])["b|start"]
    assert back.returns_to is None and back.value > 0 and not back.exhausted
    assert any(traj(p).startswith("[a|A][b|start]") for p in model.prompts("value"))
