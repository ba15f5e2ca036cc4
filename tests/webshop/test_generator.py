"""The generated catalog: deterministic, contrastive, and faithful to its goals."""

from __future__ import annotations

import json
import random

import pytest

from env_servers.webshop.settings import default_goals_path
from env_servers.webshop.generator import best_options, generate_catalog
from env_servers.webshop.goals import PRICE_RANGE, episode_order
from env_servers.webshop.reward import contains_phrase, product_text, purchase_reward

SAMPLE = 400


@pytest.fixture(scope="module")
def instructions() -> list[str]:
    return json.loads(default_goals_path().read_text("utf-8"))


@pytest.fixture(scope="module")
def sample(instructions):
    return generate_catalog(instructions[:SAMPLE], seed=0)


def by_goal(catalog):
    products = {}
    for product in catalog.products:
        products.setdefault(product["goal_index"], []).append(product)
    return products


def test_same_seed_same_catalog_other_seed_other_catalog(instructions, sample):
    again = generate_catalog(instructions[:SAMPLE], seed=0)
    assert json.dumps(again.products) == json.dumps(sample.products)
    assert json.dumps(again.goals) == json.dumps(sample.goals)
    other = generate_catalog(instructions[:SAMPLE], seed=1)
    assert [p["asin"] for p in other.products] != [p["asin"] for p in sample.products]
    assert [g["price_upper"] for g in other.goals] != [g["price_upper"] for g in sample.goals]


def test_a_goal_depends_only_on_the_seed_its_number_and_its_text(instructions, sample):
    changed = list(instructions[:10])
    changed[3] = "i need a completely different red umbrella"
    again = generate_catalog(changed, seed=0)
    for index in (2, 7):
        before = next(g for g in sample.goals if g["source_index"] == index)
        after = next(g for g in again.goals if g["source_index"] == index)
        assert after == before


def test_goals_follow_the_seeded_episode_order(sample):
    order = episode_order(SAMPLE)
    assert [g["source_index"] for g in sample.goals] == order
    assert order != sorted(order)


def test_product_ids_are_unique(sample):
    asins = [p["asin"] for p in sample.products]
    assert len(asins) == len(set(asins))
    assert all(a.startswith("B0") and len(a) == 10 for a in asins)


def test_every_target_scores_one_and_every_distractor_less(sample):
    products = by_goal(sample)
    for goal in sample.goals:
        for product in products[goal["source_index"]]:
            score = purchase_reward(product, goal, product["price"],
                                    best_options(product, goal)).total
            if product["kind"] == "target":
                assert product["asin"] == goal["asin"] and score == 1.0, goal["instruction"]
            else:
                assert score < 1.0, (product["kind"], goal["instruction"])


def test_distractors_differ_in_the_way_their_kind_says(sample):
    products = by_goal(sample)
    kinds = set()
    for goal in sample.goals:
        for product in products[goal["source_index"]]:
            kind = product["kind"]
            kinds.add(kind)
            reward = purchase_reward(product, goal, product["price"], best_options(product, goal))
            if kind == "missing_attribute":
                missing = set(goal["attributes"]) - set(product["Attributes"])
                assert len(missing) == 1
                assert not contains_phrase(product_text(product), missing.pop())
            elif kind == "missing_option":
                assert sum(goal["goal_options"][name] not in values
                           for name, values in product["options"].items()) == 1
            elif kind == "over_price":
                assert product["price"] > goal["price_upper"]
                assert reward.attributes_matched == len(goal["attributes"])
            elif kind == "other_type":
                assert reward.r_type == 0.0
                assert product["Title"].lower().count(goal["type_text"].split()[-1]) >= 1
    assert kinds == {"target", "missing_attribute", "missing_option", "over_price", "other_type"}


def test_wrong_option_values_never_count(sample):
    """Buying the target with any other value of an option loses that option."""
    products = by_goal(sample)
    rng = random.Random(3)
    for goal in rng.sample(sample.goals, 100):
        target = next(p for p in products[goal["source_index"]] if p["kind"] == "target")
        for name, values in target["options"].items():
            for value in values:
                if value == goal["goal_options"][name]:
                    continue
                options = {**best_options(target, goal), name: value}
                assert purchase_reward(target, goal, target["price"], options).total < 1.0


def test_price_bounds_follow_webshops_rule(sample):
    products = {p["asin"]: p for p in sample.products}
    for goal in sample.goals:
        price = products[goal["asin"]]["price"]
        nearest = [p for p in PRICE_RANGE if p > price][:4]
        assert goal["price_upper"] in nearest[1:], (price, goal["price_upper"])
        shown = goal["instruction"].strip().rstrip(".").strip()
        assert goal["instruction_text"] == \
            f"{shown}, and price lower than {goal['price_upper']:.2f} dollars"


def test_the_shipped_catalog_covers_every_human_instruction(store, instructions):
    assert store.goal_count == len(instructions) == 12087
    assert store.product_count > 4 * len(instructions)
    assert store.meta["dropped_distractors"] < 20
    first = store.goal(0)
    assert first["source_index"] == episode_order(len(instructions))[0]
    assert first["instruction"] == instructions[first["source_index"]]
    assert store.product(first["asin"])["kind"] == "target"
