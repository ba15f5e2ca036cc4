"""Sibling actions that lead to the same state (StepResult.state_key) are one child:
the planner merges on the environment's key alone (the thought in front of a move
is no part of the state), counts their votes, and never values the repeat."""

from __future__ import annotations

import json

from lats_pb import environment_pb2 as env_pb

from planner.environment import Environment, EnvState, Started, Stepped, TaskRef

from tests.methods.fakes import CallModel, run_method
from tests.planner.fakes import description


class MoveEnv(Environment):
    """An action is `thought|move`; the state is the moves made; `win` ends it."""

    def __init__(self, state_keys: bool = True):
        desc = description()
        desc.facts.state_keys = state_keys
        desc.prompt_pack.search_hints.CopyFrom(env_pb.SearchHints(
            simulate=False, max_depth=3, value_weight=1.0))
        self.description = desc
        self.stepped: list[str] = []

    async def describe(self):
        return self.description

    async def start(self, task: TaskRef) -> Started:
        return Started("start", "t", EnvState(env_pb.Snapshot(blob=b"[]")))

    async def transition(self, state: EnvState, actions) -> list[Stepped]:
        before = json.loads(state.snapshot.blob)
        results = []
        for action in actions:
            self.stepped.append(action)
            move = action.split("|")[-1]
            after = [*before, move]
            key = "/".join(after) if self.description.facts.state_keys else ""
            results.append(Stepped(f"at {move}", 1.0 if move == "win" else 0.0, move == "win",
                                   False, False,
                                   EnvState(env_pb.Snapshot(blob=json.dumps(after).encode())),
                                   state_key=key))
        return results

    async def score(self, state: EnvState):
        return env_pb.ScoreResponse(score=0.0, success=False)


def scripted(draws: list[list[str]]):
    """Root proposals in turn, n at a time, whatever the call (lats's greedy attempt
    takes the first alone); anything deeper proposes `win`."""
    root_texts = iter([text for draw in draws for text in draw])

    def answer(purpose, prompt, params):
        if purpose == "value":
            return ["score is 5"] * params.n
        if purpose != "act":
            return ["a lesson"] * params.n
        if "traj= " in prompt:
            return [next(root_texts) for _ in range(params.n)]
        return ["go|win"] * params.n

    return CallModel(answer)


def root_search(env, model, method="lats", **request):
    request.setdefault("n_samples", 3)
    request.setdefault("iterations", 1)
    found, outcome, _ = run_method(method, env, model, **request)
    return found.root


def test_siblings_reaching_one_state_are_one_child_with_their_votes():
    env = MoveEnv()
    model = scripted([["think a|A", "other words|A", "hmm|B"]])
    root = root_search(env, model)
    assert [c.action for c in root.children] == ["think a|A", "hmm|B"]
    merged = root.children[0]
    assert merged.sample_count == 2 and abs(merged.sc_score - 2 / 3) < 1e-9
    assert [c.id for c in root.children] == ["0.0", "0.1"]
    assert model.purposes().count("value") == 2, "the repeat gets no value call"


def test_a_later_draw_reaching_a_known_state_is_a_repeat_not_a_new_child():
    env = MoveEnv()
    model = scripted([["a|A", "b|B", "c|B"], ["d|A", "e|C", "a|A"]])
    root = root_search(env, model, iterations=2, deeper_prior=0.0)
    assert [c.action.split("|")[1] for c in root.children] == ["A", "B", "C"]
    assert root.children[0].repeats == 2, "d|A by its state, a|A by its very text"
    assert env.stepped.count("a|A") == 1, "the same text from the same state is never stepped again"


def test_without_state_keys_or_dedup_every_distinct_text_is_a_child():
    for env, method in ((MoveEnv(state_keys=False), "lats"), (MoveEnv(), "lats_paper")):
        root = root_search(env, scripted([["x|A", "y|A", "z|B"]]), method=method)
        assert [c.action for c in root.children] == ["x|A", "y|A", "z|B"], method


def test_tree_of_thoughts_merges_siblings_reaching_one_state_as_its_code_does():
    """ToT's code values a repeated candidate 0 without a call; here a same-state
    sibling is folded into the first, for BFS and DFS alike, and gets no value call."""
    for method in ("tot_bfs", "tot_dfs"):
        env = MoveEnv()
        model = scripted([["think a|A", "other words|A", "hmm|B"]])
        root = root_search(env, model, method=method, iterations=1, max_depth=1)
        assert [c.action for c in root.children] == ["think a|A", "hmm|B"], method
        assert root.children[0].sample_count == 2, method
        assert model.purposes().count("value") == 2, method
