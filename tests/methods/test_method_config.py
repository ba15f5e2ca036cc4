"""Effective settings per method: request > method defaults > hints > paper defaults,
with each method's fixed settings on top."""

import pytest

from lats_pb import environment_pb2 as env_pb
from lats_pb import planner_pb2 as pb

from planner.config import ConfigError, effective_config, to_proto
from planner.mcts import Mcts
from planner.methods import METHODS, method_spec
from planner.methods.cot import CotSearch
from planner.methods.react import TrajectorySampler
from planner.methods.reflexion import ReflexionSearch
from planner.methods.sampling import BestOfN
from planner.methods.tot import BfsSearch, DfsSearch

HINTS = env_pb.SearchHints(max_depth=4, n_samples=5, iterations=10, simulate=True,
                           value_weight=0.8)


def config(method, **request):
    return effective_config(pb.SearchConfig(method=method, **request), HINTS)


def test_every_method_name_maps_to_its_strategy():
    assert {name: spec.strategy for name, spec in METHODS.items()} == {
        "lats": Mcts, "lats_paper": Mcts, "best_of_n": BestOfN, "lats_dfs": DfsSearch, "tot_dfs": DfsSearch, "tot_bfs": BfsSearch,
        "react": TrajectorySampler, "react_bok": TrajectorySampler,
        "reflexion": ReflexionSearch, "cot": CotSearch, "cot_sc": CotSearch,
        "lats_fallback": Mcts}
    assert [name for name, spec in METHODS.items() if spec.falls_back] == ["lats_fallback"]
    assert method_spec("").name == "lats"


def test_unknown_method_is_a_config_error_that_lists_the_choices():
    with pytest.raises(ConfigError, match="unknown method 'mcts'.*lats, lats_paper.*cot_sc"):
        config("mcts")


def test_lats_keeps_hints_and_request_layers():
    c = config("lats")
    assert (c.n_samples, c.iterations, c.max_depth, c.value_weight) == (5, 10, 4, 0.8)
    c = config("lats", n_samples=3, value_weight=0.5, lm_value=False, reflection=False)
    assert (c.n_samples, c.value_weight, c.lm_value, c.reflection) == (3, 0.5, False, False)


def test_react_is_one_greedy_trajectory_whatever_k_and_n_the_request_says():
    c = config("react", iterations=7, n_samples=4)
    assert (c.iterations, c.n_samples, c.temperature, c.reflection) == (1, 1, 0.0, False)
    assert config("react", temperature=0.7).temperature == 0.7


def test_best_of_k_samples_and_keeps_k():
    c = config("react_bok", iterations=6, n_samples=4)
    assert (c.iterations, c.n_samples, c.temperature) == (6, 1, 1.0)


def test_reflexion_is_greedy_and_keeps_the_environments_reflection_style():
    hints = env_pb.SearchHints(reflect_each_failure=True, root_samples=1)
    c = effective_config(pb.SearchConfig(method="reflexion", iterations=4), hints)
    assert (c.iterations, c.n_samples, c.temperature, c.complete_answer_actions) == (4, 1, 0.0, True)


def test_tot_uses_the_lm_value_only_unless_the_request_says_otherwise():
    assert config("tot_dfs").value_weight == 1.0       # beats the environment's 0.8
    assert config("tot_dfs").reflection is False
    assert config("tot_dfs", value_weight=0.3).value_weight == 0.3
    assert config("tot_bfs", reflection=True).reflection is False   # fixed
    assert config("lats_dfs").value_weight == 0.8 and config("lats_dfs").reflection


def test_cot_is_one_transcript_and_cot_sc_k_of_them():
    c = config("cot", iterations=5)
    assert (c.iterations, c.n_samples, c.temperature) == (1, 1, 0.0)
    c = config("cot_sc", iterations=9, n_samples=3)
    assert (c.iterations, c.n_samples, c.temperature) == (9, 3, 1.0)


def test_ranges_are_checked_after_merging():
    with pytest.raises(ConfigError, match="value_weight"):
        config("tot_dfs", value_weight=1.5)
    with pytest.raises(ConfigError, match="n_samples must be 1..64, got 65"):
        config("lats", n_samples=65)


def test_reported_config_names_the_method_and_the_ablation_switches():
    request = pb.SearchConfig(method="tot_dfs", lm_value=False, iterations=3)
    reported = to_proto(effective_config(request, HINTS), request)
    assert reported.method == "tot_dfs" and reported.iterations == 3
    assert reported.HasField("lm_value") and reported.lm_value is False
    assert reported.value_weight == 1.0 and reported.reflection is False
    plain = pb.SearchConfig()
    assert to_proto(effective_config(plain, HINTS), plain).method == "lats"


def test_parallel_is_taken_from_the_request_checked_and_reported():
    assert config("lats").parallel == 1
    c = config("lats", parallel=8)
    assert c.parallel == 8
    assert to_proto(c, pb.SearchConfig(method="lats", parallel=8)).parallel == 8
    with pytest.raises(ConfigError, match="parallel must be 1..64, got 65"):
        config("lats", parallel=65)


def test_the_environments_widening_hint_is_a_layer_the_request_overrides():
    hinted = env_pb.SearchHints(n_samples=5, simulate=False, widening=0.5)
    request = pb.SearchConfig(method="lats")
    assert effective_config(request, hinted).widening == 0.5
    assert effective_config(request, HINTS).widening == 0.0, "unset: off"
    request.widening = 0.0
    assert effective_config(request, hinted).widening == 0.0
    paper = effective_config(pb.SearchConfig(method="lats_paper"), hinted,
                             env_pb.SearchHints(n_samples=5, simulate=False))
    assert paper.widening == 0.0, "the paper variant takes the paper hints"


def test_the_greedy_gate_is_the_platforms_and_never_the_papers():
    assert config("lats").greedy_gate and config("best_of_n").greedy_gate
    assert config("lats", greedy_gate=False).greedy_gate is False
    assert config("lats_paper", greedy_gate=True).greedy_gate is False
    assert to_proto(config("lats"), pb.SearchConfig()).greedy_gate is True


def test_the_environments_priors_and_unrefined_failures_are_layers_the_request_overrides():
    hinted = env_pb.SearchHints(n_samples=5, simulate=False, wider_prior=0.12,
                                deeper_prior=0.02, prior_strength=5,
                                unrefined_failures=["raised"])
    lats = effective_config(pb.SearchConfig(method="lats"), hinted)
    assert (lats.wider_prior, lats.deeper_prior, lats.prior_strength) == (0.12, 0.02, 5)
    assert lats.unrefined_failures == ("raised",)
    plain = effective_config(pb.SearchConfig(method="lats"), HINTS)
    assert (plain.wider_prior, plain.deeper_prior, plain.unrefined_failures) == (0.5, 0.5, ())
    asked = effective_config(pb.SearchConfig(method="lats", deeper_prior=0.5,
                                             refine_every_failure=True), hinted)
    assert asked.deeper_prior == 0.5 and asked.unrefined_failures == ()
    assert effective_config(pb.SearchConfig(method="best_of_n"), hinted).deeper_prior == 0.0


def test_the_environments_loop_hint_reaches_tree_searches_only():
    """Single-trajectory methods never prune: their rollouts have no tree to branch from."""
    hinted = env_pb.SearchHints(n_samples=5, simulate=True, prune_loops=True)
    assert effective_config(pb.SearchConfig(method="lats"), hinted).prune_loops is True
    assert effective_config(pb.SearchConfig(method="lats"), HINTS).prune_loops is False
    assert effective_config(pb.SearchConfig(method="lats", prune_loops=False),
                            hinted).prune_loops is False
    paper = env_pb.SearchHints(n_samples=5, simulate=True)
    assert effective_config(pb.SearchConfig(method="lats_paper"), hinted,
                            paper).prune_loops is False, "the paper hints say nothing of loops"
    for method in ("react", "react_bok", "reflexion", "cot", "cot_sc"):
        assert effective_config(pb.SearchConfig(method=method, prune_loops=True),
                                hinted).prune_loops is False, method
    assert to_proto(effective_config(pb.SearchConfig(method="lats"), hinted),
                    pb.SearchConfig()).prune_loops is True
