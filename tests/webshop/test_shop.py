"""Every page transition, invalid actions, pagination, options and buying."""

from __future__ import annotations

import json
import re

import pytest

from env_servers.webshop.shop import ForeignState

TASK = "fixed_0"


@pytest.fixture
def episode(shop):
    return shop.new_episode(TASK)


def act(shop, state, action):
    """Steps a valid action and returns (new state, observation)."""
    result = shop.step(state, action)
    assert not result.invalid, f"{action} was invalid: {result.observation}"
    return result.state, result.observation


def act_invalid(shop, state, action):
    result = shop.step(state, action)
    assert result.invalid, f"{action} should be invalid, got {result.observation[:200]}"
    assert result.state is state and result.reward == 0 and not result.done
    assert result.observation.startswith("Invalid action! ")
    return result.observation


def product_ids(observation):
    return re.findall(r"^\[(B0[0-9A-Z]{8})\]$", observation, re.MULTILINE)


def target_page(shop, state):
    """Searches the target's title and opens the results page that lists it."""
    goal = state["goal"]
    title = shop.store.product(goal["asin"])["Title"]
    state, observation = act(shop, state, f"search[{title}]")
    while goal["asin"] not in product_ids(observation):
        state, observation = act(shop, state, "click[Next >]")
    return state, observation


def open_target(shop, state):
    state, _ = target_page(shop, state)
    return act(shop, state, f"click[{state['goal']['asin']}]")


def test_reset_shows_the_search_page_with_the_instruction(episode):
    instruction = episode["goal"]["instruction_text"]
    assert episode["observation"] == f"WebShop\nInstruction:\n{instruction}\n[Search]"
    assert re.search(r", and price lower than \d+\.\d\d dollars$", instruction)
    assert json.loads(json.dumps(episode)) == episode


def test_search_shows_ten_results_per_page(shop, episode):
    _, observation = act(shop, episode, "search[Boat Shoes]")
    lines = observation.split("\n")
    assert lines[:3] == ["[Back to Search]", "Page 1 (Total results: 50)", "[Next >]"]
    assert "[< Prev]" not in lines
    ids = product_ids(observation)
    assert len(ids) == 10 and len(set(ids)) == 10
    first = lines.index(f"[{ids[0]}]")
    assert lines[first + 2].startswith("$"), "each result shows id, title, price"


def test_pagination_next_prev_and_the_last_page(shop, episode):
    state, first = act(shop, episode, "search[boat shoes]")
    pages = [product_ids(first)]
    for number in range(2, 6):
        state, observation = act(shop, state, "click[Next >]")
        assert f"Page {number} (Total results: 50)" in observation
        assert "[< Prev]" in observation
        pages.append(product_ids(observation))
    assert "[Next >]" not in observation, "the fifth page of 50 results is the last"
    act_invalid(shop, state, "click[Next >]")
    assert len({asin for page in pages for asin in page}) == 50
    state, observation = act(shop, state, "click[< Prev]")
    assert "Page 4 (Total results: 50)" in observation and product_ids(observation) == pages[3]


def test_few_results_fit_on_one_page(shop, episode):
    _, observation = act(shop, episode, "search[zzzzqx keychain]")
    total = int(re.search(r"Total results: (\d+)", observation).group(1))
    assert 0 < total <= 50
    if total <= 10:
        assert "[Next >]" not in observation
    _, nothing = act(shop, episode, "search[zzzzqx]")
    assert "Page 1 (Total results: 0)" in nothing and not product_ids(nothing)


def test_a_product_opens_its_item_page(shop, episode):
    state, observation = open_target(shop, episode)
    product = shop.store.product(episode["goal"]["asin"])
    lines = observation.split("\n")
    assert lines[:2] == ["[Back to Search]", "[< Prev]"]
    for name, values in product["options"].items():
        assert f"{name} " + "".join(f"[{v}]" for v in values) in lines
    assert product["Title"] in lines
    assert f"Price: {product['Price']}" in lines
    assert lines[-4:] == ["[Description]", "[Features]", "[Reviews]", "[Buy Now]"]


def test_choosing_options_marks_them_and_a_new_choice_replaces_the_old(shop, episode):
    state, _ = open_target(shop, episode)
    name, values = next(iter(shop.store.product(episode["goal"]["asin"])["options"].items()))
    state, observation = act(shop, state, f"click[{values[0]}]")
    assert observation == f"You have clicked {values[0]}."
    assert state["view"]["options"] == {name: values[0]}
    state, _ = act(shop, state, f"click[{values[1]}]")
    assert state["view"]["options"] == {name: values[1]}
    state, observation = act(shop, state, "click[Description]")
    state, observation = act(shop, state, "click[< Prev]")
    assert f"[[{values[1]}]]" in observation and f"[[{values[0]}]]" not in observation


def test_detail_pages_show_the_products_text_and_lead_back(shop, episode):
    state, item = open_target(shop, episode)
    product = shop.store.product(episode["goal"]["asin"])
    expected = {"Description": [product["Description"]],
                "Features": product["BulletPoints"],
                "Reviews": [product["Reviews"][0]["title"], product["Reviews"][0]["body"]]}
    for tab, texts in expected.items():
        detail, observation = act(shop, state, f"click[{tab}]")
        assert observation.split("\n")[:2] == ["[Back to Search]", "[< Prev]"]
        for text in texts:
            assert text in observation
        assert "[Buy Now]" not in observation
        _, back = act(shop, detail, "click[< Prev]")
        assert back == item


def test_prev_on_an_item_returns_to_the_same_results_page(shop, episode):
    state, results = target_page(shop, episode)
    page = state["view"]["page"]
    state, _ = act(shop, state, f"click[{episode['goal']['asin']}]")
    values = next(iter(shop.store.product(episode["goal"]["asin"])["options"].values()))
    state, _ = act(shop, state, f"click[{values[0]}]")
    state, observation = act(shop, state, "click[< Prev]")
    assert observation == results and f"Page {page} " in observation
    assert state["view"]["options"] == {}, "going back to the results drops the choices"


def test_back_to_search_from_every_page(shop, episode):
    results, _ = act(shop, episode, "search[boat shoes]")
    item, _ = open_target(shop, episode)
    detail, _ = act(shop, item, "click[Features]")
    for state in (results, item, detail):
        back, observation = act(shop, state, "click[Back to Search]")
        assert observation == episode["observation"] and back["view"] == episode["view"]


def test_buying_the_target_with_the_goals_options_scores_one(shop, episode):
    state, _ = open_target(shop, episode)
    for value in episode["goal"]["goal_options"].values():
        state, _ = act(shop, state, f"click[{value}]")
    result = shop.step(state, "click[Buy Now]")
    assert result.done and result.reward == 1.0 and not result.invalid
    assert "Your score (min 0.0, max 1.0): 1.0" in result.observation.split("\n")
    assert result.state["purchase"]["asin"] == episode["goal"]["asin"]
    assert shop.purchase_reward(result.state).total == 1.0


def test_buying_without_choosing_options_loses_their_share(shop, episode):
    state, _ = open_target(shop, episode)
    goal = episode["goal"]
    result = shop.step(state, "click[buy now]")
    shares = len(goal["attributes"]) + len(goal["goal_options"]) + 1
    assert result.reward == pytest.approx(round((shares - len(goal["goal_options"])) / shares, 6))


def test_think_is_observed_as_ok(shop, episode):
    state, observation = act(shop, episode, "think[I should search for boat shoes.]")
    assert observation == "OK." and state["view"] == episode["view"]


@pytest.mark.parametrize("action", [
    "buy the shoes", "search boat shoes", "click[]", "click[Search]", "click[Next >]",
    "click[Buy Now]", "click[B0KE05TY10]", "search[]", "jump[Back to Search]",
])
def test_invalid_actions_on_the_search_page(shop, episode, action):
    act_invalid(shop, episode, action)


def test_invalid_actions_on_other_pages_say_what_can_be_clicked(shop, episode):
    results, _ = act(shop, episode, "search[boat shoes]")
    message = act_invalid(shop, results, "search[sandals]")
    assert "click[Back to Search] first" in message
    message = act_invalid(shop, results, "click[Buy Now]")
    assert "[Back to Search]" in message and "[Next >]" in message
    item, _ = open_target(shop, episode)
    act_invalid(shop, item, "click[Next >]")
    act_invalid(shop, item, "click[B00000000X]")


def test_clicks_ignore_case_and_spacing(shop, episode):
    results, _ = act(shop, episode, "search[boat shoes]")
    state, observation = act(shop, results, "click[  next   > ]")
    assert "Page 2 " in observation
    asin = product_ids(observation)[0]
    act(shop, state, f"click[{asin.lower()}]")


def test_states_survive_json_and_replay_identically(shop, episode):
    state, _ = act(shop, episode, "search[boat shoes]")
    copy = json.loads(json.dumps(state))
    first = shop.step(state, "click[Next >]")
    second = shop.step(copy, "click[Next >]")
    assert first.observation == second.observation and first.state == second.state


def test_a_state_from_another_catalog_is_refused(shop, episode):
    foreign = dict(episode, catalog="0123456789abcdef")
    with pytest.raises(ForeignState, match="another|catalog"):
        shop.step(foreign, "search[boat shoes]")
