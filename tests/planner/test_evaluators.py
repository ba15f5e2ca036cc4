"""The value functions a search takes (planner.evaluation's Evaluator variants) and
the factory that picks one from the settings."""

import asyncio

import pytest

from planner.context import SearchContext
from planner.environment_client import TaskRef
from planner.evaluation import (EnvironmentReward, LmValue, SelfConsistency, evaluator_for)
from planner.events import EventSink
from planner.search_config import LatsConfig
from planner.tree import Node

from tests.planner.fakes import PathEnv, RuleModel, description


def _estimate(evaluator, node_fields, answer=lambda purpose, prompt, n: ["score is 7"] * n,
              calls=True):
    """(the evaluator's estimate of a depth-1 node, the model's prompts)."""
    model = RuleModel(answer)
    desc = description()
    desc.reward_range.max = 2                     # rewards normalised over [0, 2]
    ctx = SearchContext(PathEnv(), desc, model, LatsConfig(), TaskRef(task_id="t"), EventSink(),
                        evaluator)

    async def go():
        root = await ctx.start()
        node = Node(id="0.0", parent=root, depth=1, action="x", **node_fields)
        return await evaluator.evaluate(ctx, node, calls=calls)

    return asyncio.run(go()), model.prompts


def test_self_consistency_is_the_share_of_samples_with_beta_of_agreement():
    estimate, prompts = _estimate(SelfConsistency(), dict(sc_score=0.25))
    assert estimate.value == 0.25 and estimate.lm_score is None and not prompts
    mixed, _ = _estimate(SelfConsistency(0.5), dict(sc_score=0.25, answer_key="k", agreement=0.75))
    assert mixed.value == pytest.approx(0.5)
    no_key, _ = _estimate(SelfConsistency(0.5), dict(sc_score=0.25, agreement=0.75))
    assert no_key.value == 0.25                  # agreement needs an answer key


def test_environment_reward_is_the_normalised_step_reward():
    estimate, prompts = _estimate(EnvironmentReward(), dict(reward=1.5, sc_score=0.25))
    assert estimate.value == pytest.approx(0.75) and not prompts


def test_lm_value_mixes_the_parsed_score_with_its_second_term():
    estimate, prompts = _estimate(LmValue(SelfConsistency(), 0.5), dict(sc_score=0.25))
    assert [purpose for purpose, _ in prompts] == ["value"]
    assert estimate.lm_score == pytest.approx(6 / 9)
    assert estimate.value == pytest.approx(0.5 * 6 / 9 + 0.5 * 0.25)


def test_lm_value_counts_completions_its_pattern_missed():
    estimate, _ = _estimate(LmValue(SelfConsistency(), 1.0, samples=2), dict(),
                            answer=lambda purpose, prompt, n: ["no score here"] * n)
    assert (estimate.value, estimate.lm_score, estimate.parse_misses) == (0.0, 0.0, 2)


def test_lm_value_without_calls_is_its_second_term_and_asks_nothing():
    estimate, prompts = _estimate(LmValue(EnvironmentReward(), 0.5), dict(reward=1.0),
                                  calls=False)
    assert estimate.value == pytest.approx(0.5) and estimate.lm_score is None and not prompts


@pytest.mark.parametrize("settings, kind, second", [
    (dict(), LmValue, SelfConsistency),
    (dict(reward_in_value=True), LmValue, EnvironmentReward),
    (dict(lm_value=False), SelfConsistency, None),
    (dict(value_weight=0.0, reward_in_value=True), EnvironmentReward, None),
])
def test_the_settings_choose_the_evaluator(settings, kind, second):
    evaluator = evaluator_for(LatsConfig(**settings))
    assert type(evaluator) is kind
    if second is not None:
        assert type(evaluator.second) is second


def test_a_search_values_nodes_with_the_evaluator_passed_in():
    from planner.methods import method_spec

    class Constant(SelfConsistency):
        async def evaluate(self, ctx, node, calls=True):
            return (await super().evaluate(ctx, node, calls))._replace(value=0.125)

    class Values(EventSink):
        def __init__(self):
            self.values = []

        def node_evaluated(self, node):
            self.values.append(node.value)

    model = RuleModel(lambda purpose, prompt, n: ["a"] * n)
    env, events = PathEnv(), Values()
    config = LatsConfig(n_samples=2, iterations=2, max_depth=3, reflection=False)
    search = method_spec("lats_paper").search(env, env.description, model, config,
                                              TaskRef(task_id="t"), events, evaluator=Constant())
    asyncio.run(search.run())
    assert len(events.values) >= 2 and set(events.values) == {0.125}
    assert "value" not in [purpose for purpose, _ in model.prompts]
