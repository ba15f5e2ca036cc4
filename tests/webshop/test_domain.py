"""The WebShop domain: description, prompt pack, tasks and typed errors."""

from __future__ import annotations

import re
import string

import pytest

from env_servers.core import InvalidRequest, InvalidTask, TaskNotFound
from env_servers.webshop.domain import WebShopDomain
from env_servers.webshop.prompts import DEODORANT_TASK, EXAMPLES
from planner.prompting import PromptRenderer
from planner.tree import Node
from env_servers.webshop.settings import WebShopSettings


@pytest.fixture(scope="module")
def domain(store):
    return WebShopDomain()


def test_description_and_search_hints(domain):
    description = domain.describe()
    assert description.reward_mode == "oracle" and description.max_steps == 15
    assert description.splits[0] == "test"
    hints = description.prompt_pack.search_hints
    assert (hints.max_depth, hints.n_samples, hints.iterations) == (15, 5, 30)
    # the settings frozen on the dev slice (bench/README): lats:stop=3,lm_value=off,loops=on
    assert (hints.stop_class_size, hints.value_weight, hints.prune_loops) == (3, 0.0, True)
    assert not description.prompt_pack.paper_search_hints.HasField("prune_loops")
    assert not description.capabilities.inline_tasks and description.blob_snapshots
    pattern = re.compile(description.action_grammar.pattern)
    assert all(pattern.match(example) for example in description.action_grammar.examples)


def test_the_pack_is_the_papers_examples_as_turns(domain):
    pack = domain.describe().prompt_pack
    actions = re.findall(r"^Action: (\w+)\[", EXAMPLES, re.MULTILINE)
    assert actions == ["search", "think", "click", "think", "click", "click", "click"]
    turns = [(t.role, t.content) for t in pack.act_turns]
    assert turns[0] == ("user", DEODORANT_TASK)
    assert [text for role, text in turns if role == "assistant"][0] == (
        "search[3 ounce bright citrus deodorant sensitive skin]")
    assert turns[-1] == ("assistant", "click[Buy Now]")
    assert [role for role, _ in turns] == ["user", "assistant"] * 7
    verdicts = [t.content for t in pack.value_turns if t.role == "assistant"]
    scores = [int(re.search(pack.value_pattern, v).group(1)) for v in verdicts]
    assert min(scores) <= 2 and max(scores) == 10 and all("\n" not in v for v in verdicts)
    renderer = PromptRenderer(pack, DEODORANT_TASK)
    renderer.validate()
    child = Node(id="0.0", parent=Node(id="0"), depth=1, action="search[deodorant]",
                 observation="[Back to Search]\nPage 1 (Total results: 50)")
    act = renderer.act(child, ["Check the price."])
    assert act[-3][1].startswith("Notes from your earlier trials") and act[-3][1].endswith(
        DEODORANT_TASK)
    assert act[-2:] == (("assistant", "search[deodorant]"),
                        ("user", "[Back to Search]\nPage 1 (Total results: 50)"))
    value = renderer.value(child, [])[-1][1]
    assert value.startswith(DEODORANT_TASK + "\n\nAction: search[deodorant]\nObservation: ")
    assert value.endswith("10 the matching item is bought with the right options).")


def test_the_examples_observations_look_like_this_shops(domain, shop):
    state = shop.new_episode("fixed_3")
    first = state["observation"].split("\n")
    assert first[:2] == ["WebShop", "Instruction:"] and first[-1] == "[Search]"
    assert EXAMPLES.startswith("WebShop\nInstruction:\n")
    results = shop.step(state, "search[deodorant]").observation.split("\n")
    assert results[:3] == ["[Back to Search]", "Page 1 (Total results: 50)", "[Next >]"]
    assert "[Back to Search]\nPage 1 (Total results: 50)\n[Next >]\n[B078GWRC1J]" in EXAMPLES


def test_splits_list_seeded_episodes(domain, store):
    assert domain.list_tasks("test") == [f"fixed_{i}" for i in range(500)]
    assert domain.list_tasks("dev")[0] == "fixed_500" and len(domain.list_tasks("dev")) == 1000
    assert len(domain.list_tasks("all")) == store.goal_count
    assert len(domain.list_tasks("train")) == store.goal_count - 1500
    with pytest.raises(InvalidRequest, match="test, dev, train, all"):
        domain.list_tasks("validation")


def test_reset_refuses_unknown_tasks_options_and_inline_tasks(domain, store):
    with pytest.raises(TaskNotFound, match="fixed_0 to fixed_12086"):
        domain.reset(f"fixed_{store.goal_count}", 0, {})
    with pytest.raises(TaskNotFound):
        domain.reset("game24/900", 0, {})
    with pytest.raises(InvalidRequest, match="no options"):
        domain.reset("fixed_0", 0, {"difficulty": "hard"})
    with pytest.raises(InvalidTask, match="fixed_0"):
        domain.reset({"instruction": "buy socks"}, 0, {})


def test_score_before_and_after_buying(domain):
    state = domain.reset("fixed_0", 0, {}).state
    before = domain.score(state)
    assert (before.score, before.success) == (0.0, False) and "no purchase" in before.details
    target = state["goal"]["asin"]
    title = domain.shop.store.product(target)["Title"]
    for action in (f"search[{title}]", f"click[{target}]", "click[Buy Now]"):
        outcome = domain.step(state, action)
        if outcome.invalid_action and action.startswith("click[B0"):
            pytest.skip("the target is not on the first results page for its own title")
        state = outcome.state
    after = domain.score(state)
    assert after.score == state["reward"] > 0 and after.metrics["purchased"] == 1.0
    assert f"the target was {target}" in after.details


def test_a_foreign_state_is_an_invalid_request(domain):
    state = dict(domain.reset("fixed_0", 0, {}).state, catalog="ffffffffffffffff")
    with pytest.raises(InvalidRequest, match="catalog"):
        domain.step(state, "think[hm]")
    with pytest.raises(InvalidRequest):
        domain.observation_of(state)


def test_in_honest_mode_buying_earns_and_shows_nothing_and_score_judges(store):
    honest = WebShopDomain(WebShopSettings(reward_mode="honest"))
    assert honest.describe().reward_mode == "honest"
    state = honest.reset("fixed_0", 0, {}).state
    assert set(state["goal"]) == {"instruction_text"}, "no hidden goal in a state clients hold"
    target = honest.shop.goal("fixed_0")["asin"]
    title = honest.shop.store.product(target)["Title"]
    for action in (f"search[{title}]", f"click[{target}]", "click[Buy Now]"):
        outcome = honest.step(state, action)
        if outcome.invalid_action and action.startswith("click[B0"):
            pytest.skip("the target is not on the first results page for its own title")
        state = outcome.state
    assert outcome.terminated and outcome.reward == 0.0 and state["reward"] == 0.0
    assert outcome.observation.startswith(f"Thank you for shopping with us! You bought [{target}]")
    assert "reward" not in outcome.observation.lower() and "score" not in outcome.observation
    assert outcome.answer_key and outcome.state_key
    judged = honest.score(state)
    oracle = WebShopDomain()
    assert judged.score > 0 and judged.score == oracle.shop.purchase_reward(state).total
    assert f"the target was {target}" in judged.details


def test_going_back_to_search_names_the_first_state_again(domain):
    """The start page's key (Reset's) is the key of every return to it, whatever the
    path, so a planner can see that a step went back to the start (prune_loops)."""
    started = domain.reset("fixed_0", 0, {})
    searched = domain.step(started.state, "search[blue shirt]")
    back = domain.step(searched.state, "click[Back to Search]")
    assert not back.invalid_action and started.state_key
    assert back.state_key == started.state_key != searched.state_key
    again = domain.step(back.state, "search[blue shirt]")
    assert again.state_key == searched.state_key, "the same search from the start page"
