"""The WebShop reward for buying a product (Yao et al. 2022, section 3.1):

    r = r_type * (attributes matched + options matched + [price <= bound])
               / (#goal attributes + #goal options + 1)

as in WebShop's `engine/goal.py`, with two documented differences:
  * product types: the original compares nouns of the two product names
    found by spaCy; here the "type words" are the content words of each
    product's `type_text` (the generator sets it to the product type, the
    original-layout loader to the product name). The tiers are the
    original's: 1 if the query or category matches or more than 20% of the
    goal's type words appear, else 0.5; 0.1 under 10%; 0 with none.
  * the fallback search of an attribute or option in the title, features
    and description matches whole words, not substrings (so option "m" is
    not found inside "premium"); option matches count at most once per
    goal option, so r never exceeds 1.
Fuzzy matching uses rapidfuzz's token_set_ratio > 85 on lower-cased,
punctuation-free text, as the original's thefuzz did.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from rapidfuzz import fuzz, utils

from env_servers.webshop.goals import NO_PRICE_BOUND, Goal, goal_option_values
from env_servers.webshop.vocabulary import TYPE_STOPWORDS

Product = dict[str, Any]
FUZZY_THRESHOLD = 85
EXACT_MATCH_OPTIONS = ("size",)
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Reward:
    total: float
    r_type: float
    r_att: float
    r_option: float | None
    r_price: bool | None
    attributes_matched: int
    options_matched: int
    query_match: bool
    category_match: bool
    title_score: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _singular(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def type_words(text: str) -> set[str]:
    """Content words of a product type or name, singular."""
    return {_singular(w) for w in _WORD.findall(text.lower()) if w not in TYPE_STOPWORDS
            and not w.isdigit()}


def _categories(text: str) -> set[str]:
    return {part.strip().lower() for part in text.split("›") if part.strip()}


def type_reward(product: Product, goal: Goal) -> dict[str, Any]:
    query_match = bool(goal.get("query")) and product.get("query") == goal.get("query")
    category_match = len(_categories(product.get("product_category", ""))
                         & _categories(goal.get("product_category", ""))) >= 2
    wanted = type_words(goal.get("type_text", ""))
    have = type_words(product.get("type_text", ""))
    title_score = len(wanted & have) / len(wanted) if wanted else 0.2
    r_type = 1.0
    if not (query_match or category_match or title_score > 0.2):
        r_type = 0.5
    if title_score < 0.1:
        r_type = 0.1
    if title_score == 0.0:
        r_type = 0.0
    return {"r_type": r_type, "query_match": query_match, "category_match": category_match,
            "title_score": title_score}


def words_of(text: str) -> str:
    """Lower-case words joined by single spaces, padded: " gluten free bacon "."""
    return " " + " ".join(_WORD.findall(text.lower())) + " "


def contains_phrase(text: str, phrase: str) -> bool:
    """Whether `phrase` occurs in `text` as whole words, ignoring case and
    punctuation. `text` may be given already through `words_of`."""
    wanted = words_of(phrase)
    if wanted == "  ":
        return False
    haystack = text if text.startswith(" ") and text.endswith(" ") else words_of(text)
    return wanted in haystack


def product_text(product: Product) -> str:
    """Title, features and description as `words_of` text."""
    return words_of(" ".join([product.get("Title", ""), " ".join(product.get("BulletPoints", [])),
                              product.get("Description", "")]))


def _similar(first: str, second: str) -> bool:
    return fuzz.token_set_ratio(first, second, processor=utils.default_process) > FUZZY_THRESHOLD


def attribute_matches(product: Product, attribute: str, text: str | None = None) -> bool:
    if any(_similar(have, attribute) for have in product.get("Attributes", [])):
        return True
    return contains_phrase(product_text(product) if text is None else text, attribute)


def option_matches(product: Product, name: str, value: str, goal_values: list[str],
                   text: str | None = None) -> bool:
    """Whether the bought option `name: value` counts for the goal's values."""
    if name.lower() in EXACT_MATCH_OPTIONS:
        if value in goal_values:
            return True
    elif any(_similar(wanted, value) for wanted in goal_values):
        return True
    return contains_phrase(product_text(product) if text is None else text, value)


def purchase_reward(product: Product, goal: Goal, price: float,
                    options: dict[str, str]) -> Reward:
    """The reward of buying `product` at `price` with the chosen `options`."""
    kind = type_reward(product, goal)
    text = product_text(product)
    attributes = list(goal.get("attributes") or [])
    attributes_matched = sum(attribute_matches(product, a, text) for a in attributes)
    goal_values = goal_option_values(goal)
    options_matched = min(len(goal_values), sum(
        option_matches(product, name, value, goal_values, text)
        for name, value in options.items()))
    upper = float(goal.get("price_upper", NO_PRICE_BOUND))
    r_price = price <= upper if upper > 0 else None
    total = (attributes_matched + options_matched + bool(r_price)) / (
        len(attributes) + len(goal_values) + 1)
    return Reward(
        total=round(total * kind["r_type"], 6),
        r_type=kind["r_type"],
        r_att=attributes_matched / len(attributes) if attributes else 0.0,
        r_option=options_matched / len(goal_values) if goal_values else None,
        r_price=r_price,
        attributes_matched=attributes_matched,
        options_matched=options_matched,
        query_match=kind["query_match"],
        category_match=kind["category_match"],
        title_score=kind["title_score"],
    )
