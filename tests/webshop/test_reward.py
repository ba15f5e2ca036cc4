"""The paper's reward formula and its edge cases."""

from __future__ import annotations

import pytest

from env_servers.webshop.reward import contains_phrase, purchase_reward, type_reward


def product(**fields):
    base = {
        "asin": "B0TEST0001", "Title": "Velmor Gluten Free Smoked Peppered Bacon",
        "BulletPoints": ["Gluten free: tasty."], "Description": "Bacon by Velmor.",
        "Attributes": ["gluten free", "non gmo"],
        "options": {"size": ["4 ounce (pack of 2)", "8 ounce (pack of 2)"],
                    "color": ["red", "navy blue"]},
        "price": 12.0, "query": "smoked peppered bacon", "product_category": "",
        "type_text": "smoked peppered bacon",
    }
    return {**base, **fields}


def goal(**fields):
    base = {"attributes": ["gluten free", "non gmo"],
            "goal_options": {"size": "4 ounce (pack of 2)", "color": "navy blue"},
            "price_upper": 20.0, "query": "smoked peppered bacon", "product_category": "",
            "type_text": "smoked peppered bacon"}
    return {**base, **fields}


def reward(item, wanted, options, price=None):
    return purchase_reward(item, wanted, item["price"] if price is None else price, options)


def test_everything_matched_is_one():
    result = reward(product(), goal(), {"size": "4 ounce (pack of 2)", "color": "navy blue"})
    assert result.total == 1.0
    assert (result.attributes_matched, result.options_matched, result.r_price) == (2, 2, True)


def test_each_miss_costs_one_share():
    # 2 attributes + 2 options + price = 5 shares; the wrong size loses one.
    result = reward(product(), goal(), {"size": "8 ounce (pack of 2)", "color": "navy blue"})
    assert result.total == pytest.approx(4 / 5)
    assert reward(product(), goal(), {}).total == pytest.approx(3 / 5)


def test_no_options_in_the_goal():
    wanted = goal(goal_options={})
    assert reward(product(), wanted, {}).total == 1.0
    assert reward(product(Attributes=[], Title="Velmor Bacon", BulletPoints=[],
                          Description=""), wanted, {}).total == pytest.approx(1 / 3)
    assert reward(product(), wanted, {}).r_option is None


def test_price_above_the_bound():
    result = reward(product(), goal(), {"size": "4 ounce (pack of 2)", "color": "navy blue"},
                    price=20.01)
    assert result.r_price is False and result.total == pytest.approx(4 / 5)
    at_bound = reward(product(), goal(), {"size": "4 ounce (pack of 2)", "color": "navy blue"},
                      price=20.0)
    assert at_bound.total == 1.0


def test_wrong_type_scores_zero_whatever_else_matches():
    keychain = product(type_text="keychain", query="keychain")
    result = reward(keychain, goal(), {"size": "4 ounce (pack of 2)", "color": "navy blue"})
    assert result.r_type == 0.0 and result.total == 0.0


@pytest.mark.parametrize(("type_text", "query", "expected"), [
    ("smoked peppered bacon", "other", 1.0),        # all type words
    ("bacon bits", "other", 1.0),                  # 1 of 3 words > 20%
    ("bacon bits", "smoked peppered bacon", 1.0),  # query match
    ("keychain", "other", 0.0),                    # no word
])
def test_type_factor_tiers(type_text, query, expected):
    assert type_reward(product(type_text=type_text, query=query), goal())["r_type"] == expected


def test_type_factor_half_and_tenth_tiers():
    wide_goal = goal(type_text="alpha beta gamma delta epsilon zeta eta theta iota kappa kappa2")
    # 2 of 11 words (18%): no match above 20%, so 0.5
    assert type_reward(product(type_text="alpha beta", query="x"), wide_goal)["r_type"] == 0.5
    # 1 of 11 (9%): below 10%, so 0.1
    assert type_reward(product(type_text="alpha", query="x"), wide_goal)["r_type"] == 0.1
    categories = "Grocery › Meat Substitutes › Bacon"
    same_category = type_reward(product(type_text="alpha", query="x", product_category=categories),
                                goal(type_text=wide_goal["type_text"], product_category=categories))
    assert same_category["category_match"] and same_category["r_type"] == 0.1


def test_size_options_match_exactly_other_options_fuzzily():
    wanted = goal(goal_options={"size": "4 ounce (pack of 2)", "color": "navy blue"})
    # "4 ounce (pack of 1)" is a fuzzy match of the goal's size, but sizes are exact.
    near = reward(product(), wanted, {"size": "4 ounce (pack of 1)"})
    assert near.options_matched == 0
    fuzzy_color = reward(product(), wanted, {"color": "Navy Blue "})
    assert fuzzy_color.options_matched == 1


def test_option_matches_never_exceed_the_goals_options():
    wanted = goal(goal_options={"color": "navy blue"})
    result = reward(product(), wanted, {"color": "navy blue", "style": "navy blue"})
    assert result.options_matched == 1 and result.total == 1.0


def test_attributes_are_found_in_the_text_as_whole_words():
    bare = product(Attributes=[], Title="Premium Bacon", BulletPoints=[], Description="")
    wanted = goal(attributes=["mium"], goal_options={})
    assert reward(bare, wanted, {}).attributes_matched == 0
    wanted = goal(attributes=["premium"], goal_options={})
    assert reward(bare, wanted, {}).attributes_matched == 1
    assert contains_phrase("Gluten-Free, non GMO", "gluten free")
    assert not contains_phrase("glutenfree", "gluten free")
