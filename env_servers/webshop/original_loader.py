"""Loading WebShop's own product and instruction files (for users who have them).

Files, in one directory, as princeton-nlp/WebShop distributes them:
  items_shuffle*.json     list of products: asin, name, full_description,
                          small_description (str or list), pricing ("$12.99",
                          "$5.99 - $8.99" or empty), customization_options
                          ({name: [{"value": ..., "image": ...}]}), images,
                          query, category, product_category
  items_ins_v2*.json      {asin: {"attributes": [...], ...}}
  items_human_ins.json    {asin: [{"instruction": ..., "instruction_attributes":
                          [...], "instruction_options": [...]}]}
  items_reviews*.json     optional: [{"asin", "reviews": [...], "average_rating"}]

Products and human goals are prepared as WebShop's engine does (prices drawn
from a price range, option values lower-cased with "/" as " | ", goals without
attributes skipped, the price bound rule, goals shuffled with seed 233), with
one seeded random generator in place of the global one.
"""

from __future__ import annotations

import json
import random
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

from env_servers.webshop.goals import (
    NO_PRICE_BOUND,
    Goal,
    episode_order,
    instruction_with_price,
    price_upper,
)
from env_servers.webshop.reward import Product

PRODUCTS_PATTERN = "items_shuffle*.json"
ATTRIBUTES_PATTERN = "items_ins_v2*.json"
HUMAN_INSTRUCTIONS = "items_human_ins.json"
REVIEWS_PATTERN = "items_reviews*.json"
DEFAULT_PRICE = 100.0


class OriginalDataError(ValueError):
    """The directory does not hold WebShop's files in their layout."""


def original_files(directory: Path) -> dict[str, Path | None]:
    """The files the loader reads (reviews may be None); OriginalDataError if
    a required one is missing."""
    directory = Path(directory)

    def first(pattern: str, required: bool) -> Path | None:
        found = sorted(directory.glob(pattern))
        if not found and required:
            raise OriginalDataError(
                f"{directory} has no {pattern}; it must hold WebShop's {PRODUCTS_PATTERN}, "
                f"{ATTRIBUTES_PATTERN} and {HUMAN_INSTRUCTIONS}")
        return found[0] if found else None

    return {"products": first(PRODUCTS_PATTERN, True),
            "attributes": first(ATTRIBUTES_PATTERN, True),
            "human": first(HUMAN_INSTRUCTIONS, True),
            "reviews": first(REVIEWS_PATTERN, False)}


def load_original(directory: Path, seed: int = 0) -> tuple[list[Product], list[Goal]]:
    """Products and goals (in episode order) from WebShop's files."""
    files = original_files(directory)
    rng = random.Random(f"webshop-original:{seed}")
    raw_products = _read_json(files["products"], list)
    attributes = _read_json(files["attributes"], dict)
    human = _read_json(files["human"], dict)
    reviews = _reviews(files["reviews"])
    products, seen = [], set()
    for raw in raw_products:
        asin = str(raw.get("asin", ""))
        if not asin or asin == "nan" or len(asin) > 10 or asin in seen:
            continue
        seen.add(asin)
        products.append(_product(raw, attributes.get(asin, {}), reviews.get(asin), rng))
    goals = _goals(products, human, rng)
    return products, [goals[i] for i in episode_order(len(goals))]


def _read_json(path: Path, kind: type) -> Any:
    try:
        data = json.loads(Path(path).read_text("utf-8"))
    except (OSError, ValueError) as error:
        raise OriginalDataError(f"cannot read {path}: {error}") from error
    if not isinstance(data, kind):
        raise OriginalDataError(f"{path} must hold a JSON {kind.__name__}")
    return data


def _reviews(path: Path | None) -> dict[str, dict]:
    if path is None:
        return {}
    return {str(r["asin"]): r for r in _read_json(path, list) if isinstance(r, dict)}


def _prices(pricing: Any) -> tuple[list[float], str]:
    """WebShop's parsing: "$5.99 - $8.99" -> [5.99, 8.99], "$5.99 to $8.99"."""
    if not pricing:
        return [DEFAULT_PRICE], f"${DEFAULT_PRICE}"
    values = []
    for part in str(pricing).split("$")[1:]:
        digits = re.sub(r"[^\d.]", "", part)
        if digits:
            values.append(float(Decimal(digits)))
    if not values:
        return [DEFAULT_PRICE], f"${DEFAULT_PRICE}"
    if len(values) == 1:
        return values, f"${values[0]}"
    return values[:2], f"${values[0]} to ${values[1]}"


def _product(raw: dict, attributes: dict, reviews: dict | None, rng: random.Random) -> Product:
    pricing, price_tag = _prices(raw.get("pricing"))
    price = pricing[0] if len(pricing) == 1 else round(rng.uniform(*pricing[:2]), 2)
    options: dict[str, list[str]] = {}
    for name, contents in (raw.get("customization_options") or {}).items():
        if contents:
            options[name.lower()] = [str(c["value"]).strip().replace("/", " | ").lower()
                                     for c in contents]
    bullets = raw.get("small_description") or []
    name = str(raw.get("name", ""))
    return {
        "asin": str(raw["asin"]),
        "Title": name,
        "Description": str(raw.get("full_description") or ""),
        "BulletPoints": bullets if isinstance(bullets, list) else [str(bullets)],
        "Attributes": list(attributes.get("attributes") or ["DUMMY_ATTR"]),
        "options": options,
        "price": price,
        "pricing": pricing,
        "Price": price_tag,
        "Rating": (reviews or {}).get("average_rating", "N.A."),
        "Reviews": [{"title": r.get("title", ""), "score": r.get("score", r.get("stars", "")),
                     "body": r.get("body", r.get("review", ""))}
                    for r in (reviews or {}).get("reviews", [])],
        "query": str(raw.get("query", "")).lower().strip(),
        "category": str(raw.get("category", "")),
        "product_category": str(raw.get("product_category", "")),
        "type_text": name,
        "MainImage": (raw.get("images") or [""])[0],
    }


def _goals(products: list[Product], human: dict, rng: random.Random) -> list[Goal]:
    goals = []
    for product in products:
        for entry in human.get(product["asin"], []):
            attributes = list(entry.get("instruction_attributes") or [])
            if not attributes:
                continue  # as WebShop: goals need at least one attribute
            upper = price_upper(product["price"], rng)
            goals.append({
                "asin": product["asin"],
                "instruction_text": instruction_with_price(entry["instruction"], upper),
                "instruction": entry["instruction"],
                "attributes": attributes,
                "goal_options": list(entry.get("instruction_options") or []),
                "price_upper": upper if upper < NO_PRICE_BOUND else NO_PRICE_BOUND,
                "query": product["query"],
                "category": product["category"],
                "product_category": product["product_category"],
                "type_text": product["type_text"],
                "name": product["Title"],
            })
    return goals
