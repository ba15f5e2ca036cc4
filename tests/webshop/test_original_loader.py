"""WebShop's own file layout: products, attributes and human instructions."""

from __future__ import annotations

from pathlib import Path

import pytest

from env_servers.core.domain_settings import settings_from_environment
from env_servers.webshop.catalog import CatalogSource, open_catalog
from env_servers.webshop.settings import WebShopSettings
from env_servers.webshop.original_loader import OriginalDataError, load_original
from env_servers.webshop.shop import Shop

FIXTURE = Path(__file__).with_name("original_layout")


@pytest.fixture(scope="module")
def loaded():
    products, goals = load_original(FIXTURE, seed=0)
    return {p["asin"]: p for p in products}, goals


def test_products_are_prepared_as_webshops_engine_does(loaded):
    products, _ = loaded
    assert sorted(products) == ["B0000NOPRC", "B06XKTG9BR", "B078GWRC1J", "B07GJTKYJQ"]
    bacon = products["B06XKTG9BR"]
    assert bacon["options"] == {"size": ["4 ounce (pack of 2)", "8 ounce (pack of 1)"],
                                "flavor name": ["smoked | peppered", "original"]}
    assert (bacon["price"], bacon["Price"]) == (24.99, "$24.99")
    assert bacon["Attributes"] == ["gluten free", "plant based"]
    assert bacon["BulletPoints"] == ["Gluten free and vegan", "Smoked peppered flavor"]
    deodorant = products["B078GWRC1J"]
    assert deodorant["Price"] == "$10.99 to $12.99" and 10.99 <= deodorant["price"] <= 12.99
    assert deodorant["Title"].startswith("Bright Citrus Deodorant")
    jerky = products["B07GJTKYJQ"]
    assert jerky["BulletPoints"] == ["Non-GMO soy protein"] and jerky["options"] == {}
    spoon = products["B0000NOPRC"]
    assert (spoon["price"], spoon["Price"], spoon["Attributes"]) == (100.0, "$100.0",
                                                                      ["DUMMY_ATTR"])


def test_human_goals_get_a_price_bound_and_skip_goals_without_attributes(loaded):
    products, goals = loaded
    assert sorted(g["asin"] for g in goals) == ["B06XKTG9BR", "B078GWRC1J"]
    bacon = next(g for g in goals if g["asin"] == "B06XKTG9BR")
    assert bacon["price_upper"] in (40.0, 50.0, 60.0)
    assert bacon["instruction_text"] == (
        "i need gluten free vegetarian smoked peppered bacon - 4 ounce (pack of 2), and price "
        f"lower than {bacon['price_upper']:.2f} dollars")
    assert bacon["goal_options"] == ["4 ounce (pack of 2)", "smoked | peppered"]
    assert bacon["type_text"] == products["B06XKTG9BR"]["Title"]
    assert load_original(FIXTURE, seed=0)[1] == goals, "same seed, same goals"


def test_a_missing_file_is_named(tmp_path):
    (tmp_path / "items_shuffle_1.json").write_text("[]")
    with pytest.raises(OriginalDataError, match="items_ins_v2"):
        load_original(tmp_path)


def test_an_episode_on_the_original_files_buys_the_target(tmp_path):
    settings = settings_from_environment(WebShopSettings, {
        "LATS_WEBSHOP_DATA": str(FIXTURE), "LATS_WEBSHOP_CACHE": str(tmp_path)})
    assert CatalogSource.of(settings).kind == "original"
    shop = Shop(open_catalog(settings))
    task = next(f"fixed_{i}" for i in range(shop.store.goal_count)
                if shop.goal(f"fixed_{i}")["asin"] == "B06XKTG9BR")
    state = shop.new_episode(task)
    for action in ("search[vegetarian bacon gluten free]", "click[B06XKTG9BR]",
                   "click[4 ounce (pack of 2)]", "click[smoked | peppered]"):
        result = shop.step(state, action)
        assert not result.invalid, result.observation
        state = result.state
    bought = shop.step(state, "click[Buy Now]")
    assert bought.done and bought.reward == 1.0
    # The jerky shares one word with the goal's product: half the type factor.
    state = shop.new_episode(task)
    for action in ("search[vegan jerky]", "click[B07GJTKYJQ]", "click[Buy Now]"):
        state = shop.step(state, action).state
    assert state["done"] and state["purchase"]["reward"]["r_type"] == 0.5
    assert state["reward"] < 0.5
