"""LATS's ablation switches and hyperparameters, and the budget every method obeys."""

import pytest

from planner.methods import METHODS

from tests.methods.fakes import CallModel, PathEnv, run_method, traj


def answer_xy(purpose, prompt, params):
    if purpose == "act":
        if traj(prompt):
            return ["lose"] * params.n
        return (["x", "x", "y"] * params.n)[:params.n]
    if purpose == "value":
        return ["score is 10"] * params.n
    return ["lesson"]


def test_no_lm_value_makes_no_value_calls_and_values_by_self_consistency():
    model = CallModel(answer_xy)
    _, _, events = run_method("lats_paper", PathEnv(), model, n_samples=3, iterations=1,
                              lm_value=False)
    assert "value" not in model.purposes()
    x, y = (node for (node,) in events.of("node_evaluated")[:2])   # before backpropagation
    assert (x.value, y.value) == (pytest.approx(2 / 3), pytest.approx(1 / 3))
    assert x.lm_score == -1.0                           # reported as not evaluated


def test_with_the_lm_value_the_same_tree_costs_value_calls():
    model = CallModel(answer_xy)
    _, _, events = run_method("lats_paper", PathEnv(), model, n_samples=3, iterations=1)
    assert model.purposes().count("value") == 2
    x = events.of("node_evaluated")[0][0]
    assert x.value == pytest.approx(0.5 * 1.0 + 0.5 * 2 / 3)


def test_no_lm_value_with_reward_in_value_uses_the_step_reward():
    from tests.planner.fakes import description
    desc = description()
    desc.prompt_pack.search_hints.reward_in_value = True
    model = CallModel(answer_xy)
    search, _, _ = run_method("lats_paper", PathEnv(), model, desc=desc, n_samples=3, iterations=1,
                              lm_value=False)
    assert [c.value for c in search.root.children] == [0.0, 0.0]


def test_no_reflection_and_lambda_one():
    model = CallModel(answer_xy)
    _, _, events = run_method("lats_paper", PathEnv(), model, n_samples=3, iterations=2,
                              reflection=False, value_weight=1.0)
    assert "reflect" not in model.purposes()
    first = [node.value for (node,) in events.of("node_evaluated")[:2]]
    assert first == [1.0, 1.0]                            # the LM's 10/10, no SC


def test_n_k_and_d_reach_the_search():
    model = CallModel(lambda purpose, prompt, params: [f"go{i}" for i in range(params.n)]
                      if purpose == "act" else ["score is 5"] * params.n)
    search, outcome, _ = run_method("lats_paper", PathEnv(), model, n_samples=4, iterations=2,
                                    max_depth=3, reflection=False)
    assert {c[2].n for c in model.calls if c[0] == "act"} == {4}
    assert outcome.iterations == 2
    assert max(n.depth for n in search.root.walk()) == 3


@pytest.mark.parametrize("w, second", [(0.0, "0.0.1"), (5.0, "0.1")])
def test_exploration_weight_w_decides_where_the_second_iteration_goes(w, second):
    tree = {"": ["a", "b"], "[a]": ["x1", "x2"], "[a][x1]": ["lose", "lose"]}
    scores = {"[a]": 9, "[b]": 3, "[a][x1]": 5, "[a][x2]": 4}

    def answer(purpose, prompt, params):
        if purpose == "act":
            return tree.get(traj(prompt), ["lose", "lose"])[:params.n]
        return [f"score is {scores.get(traj(prompt), 5)}"] * params.n

    _, _, events = run_method("lats_paper", PathEnv(), CallModel(answer), n_samples=2, iterations=2,
                              max_depth=3, value_weight=1.0, reflection=False,
                              exploration_weight=w)
    assert [node.id for node, _ in events.of("selected")] == ["0", second]


def generic(purpose, prompt, params):
    if purpose == "cot":
        return [" go]\n[go]\n"] * params.n
    if purpose == "value":
        return ["score is 5"] * params.n
    return ["go"] * params.n


@pytest.mark.parametrize("method", sorted(METHODS))
def test_every_method_stops_gracefully_when_the_model_budget_is_spent(method):
    model = CallModel(generic, max_calls=1)
    _, outcome, _ = run_method(method, PathEnv(), model, iterations=50, max_depth=20,
                               n_samples=2)
    assert model.usage.calls <= 1 and outcome.status == "failed"
    if method != "cot":                                  # one call is all CoT needs
        assert "budget" in outcome.reason


@pytest.mark.parametrize("method", sorted(METHODS))
def test_every_method_reports_its_usage_and_expansions(method):
    model = CallModel(generic)
    search, outcome, _ = run_method(method, PathEnv(), model, iterations=2, max_depth=2,
                                    n_samples=2)
    assert model.usage.calls == len(model.calls) > 0
    assert outcome.nodes_expanded == search.nodes_expanded > 0
    assert outcome.wall_seconds > 0 and outcome.score is not None
