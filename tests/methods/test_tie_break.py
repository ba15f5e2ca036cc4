"""Close classes of passing answers are told apart by the model's judgment of where
they differ (planner.tie_break): facets come from the environment (from the task
statement), the judgment from the model, never from hidden tests."""

from __future__ import annotations

import json

from lats_pb import environment_pb2 as env_pb

from planner.environment import EnvState, Stepped

from tests.methods.fakes import CallModel, WholeProgramEnv, run_method

# program -> (share of visible checks passed, answer key, facets: probe call -> value)
PROGRAMS = {
    "sum": (1.0, "S", (("f(1, 2)", "3"), ("f(0, 0)", "0"), ("f(2, 2)", "4"))),
    "sum_again": (1.0, "S", (("f(1, 2)", "3"), ("f(0, 0)", "0"), ("f(2, 2)", "4"))),
    "prod_like": (1.0, "P", (("f(1, 2)", "3"), ("f(0, 0)", "1"), ("f(2, 2)", "4"))),
    "prod_again": (1.0, "P", (("f(1, 2)", "3"), ("f(0, 0)", "1"), ("f(2, 2)", "4"))),
    "other": (1.0, "O", (("f(1, 2)", "3"), ("f(0, 0)", "7"), ("f(2, 2)", "9"))),
}


class FacetEnv(WholeProgramEnv):
    """Whole programs with answer keys and facets; Score knows which is right (hidden)."""

    def __init__(self, compare: bool = True):
        super().__init__(reflection=False)
        if compare:
            pack = self.description.prompt_pack
            pack.compare_template = "COMPARE {task} call={facet} options={options}"
            pack.compare_pattern = r"Answer:\s*([A-Z])"
        self.hidden_reads = 0

    async def transition(self, state: EnvState, actions) -> list[Stepped]:
        results = []
        for action in actions:
            share, key, facets = PROGRAMS.get(action, (0.0, "Z" + action, ()))
            results.append(Stepped("ok", share, share == 1.0, False, False,
                                   EnvState(env_pb.Snapshot(blob=json.dumps(action).encode())),
                                   key, answer_facets=facets))
        return results

    async def score(self, state: EnvState):
        self.hidden_reads += 1
        program = json.loads(state.snapshot.blob)
        return env_pb.ScoreResponse(score=1.0, success=program.startswith("sum"))


def model(greedy: str, samples: list[str], verdict: str = "Answer: A"):
    def answer(purpose, prompt, params):
        if purpose == "cot":
            return [greedy] * params.n
        if purpose == "compare":
            return [verdict] * params.n
        return (samples * params.n)[:params.n]
    return CallModel(answer)


def solve(env, scripted, method="lats", **request):
    request.setdefault("n_samples", 5)
    request.setdefault("iterations", 1)
    request.setdefault("stop_class_size", 8)
    request.setdefault("greedy_gate", False)
    return run_method(method, env, scripted, **request)


def test_close_classes_are_decided_by_the_models_judgment_where_they_differ():
    env = FacetEnv()
    scripted = model("prod_like", ["prod_again", "sum", "sum_again", "zzz"], "Answer: B")
    found, outcome, _ = solve(env, scripted)
    compares = scripted.prompts("compare")
    assert len(compares) == 1, "one question: the one input where the two classes differ"
    assert "call=f(0, 0)" in compares[0] and "options=A. 1\nB. 0" in compares[0]
    assert outcome.answer.answer_key == "S", "the class the model judged right, not the greedy"
    assert "judgment" in outcome.answer_reason
    assert env.hidden_reads == 1, "Score once, on the answer, after the choice"


def test_the_larger_class_stays_when_the_model_agrees_or_says_nothing_usable():
    for verdict in ("Answer: A", "I am not sure"):
        scripted = model("prod_like", ["prod_again", "sum", "sum_again", "zzz"], verdict)
        _, outcome, _ = solve(FacetEnv(), scripted)
        assert outcome.answer.answer_key == "P", verdict


def test_no_question_without_a_close_class_a_compare_template_or_the_switch():
    distant = model("sum", ["sum_again", "sum", "sum_again", "prod_like"])
    solve(FacetEnv(), distant)
    assert distant.prompts("compare") == [], "3 votes against 1 is not close"
    for env, request in ((FacetEnv(compare=False), {}), (FacetEnv(), {"tie_break": False})):
        scripted = model("prod_like", ["prod_again", "sum", "sum_again", "zzz"])
        solve(env, scripted, **request)
        assert scripted.prompts("compare") == []


def test_best_of_n_breaks_ties_the_same_way():
    scripted = model("prod_like", ["prod_again", "sum", "sum_again", "zzz"], "Answer: B")
    _, outcome, _ = solve(FacetEnv(), scripted, method="best_of_n")
    assert outcome.answer.answer_key == "S"


def test_a_spent_budget_leaves_the_choice_to_size():
    scripted = model("prod_like", ["prod_again", "sum", "sum_again", "zzz"], "Answer: B")
    scripted.max_calls = 2                       # the greedy attempt and one draw
    _, outcome, _ = solve(FacetEnv(), scripted)
    assert scripted.prompts("compare") == [] and outcome.answer.answer_key == "P"
