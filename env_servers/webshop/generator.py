"""The shipped catalog: generated deterministically from human instructions.

For instruction number i (WebShop's 12,087 human instructions), with a
random generator seeded by (seed, i) only:
  * the goal is parsed from the text (instructions.parse_instruction): product
    type, attributes, options; the target's price is drawn and the price bound
    follows WebShop's rule (goals.price_upper);
  * the TARGET product has the type in its title, every goal attribute in its
    attributes, features and description, and every goal option among its
    option values (next to two or three other values);
  * CONTRASTIVE distractors differ in one way each, so that careless
    searching and clicking fails: one misses an attribute, one lacks the goal
    value of an option, one costs more than the bound, one is another type of
    product sold under the same words ("... Bacon Keychain").
Every distractor is checked with the reward function itself: bought with the
goal's options, it must score below 1 (else it is dropped), and the target
must score exactly 1.

Products and goals are plain dicts in WebShop's product layout (Title,
Description, BulletPoints, Attributes, options, Price, ...). Nothing depends
on iteration order or hash seeds: the same seed gives the same catalog.
"""

from __future__ import annotations

import hashlib
import math
import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from env_servers.webshop import vocabulary as vocab
from env_servers.webshop.goals import (
    Goal,
    episode_order,
    instruction_with_price,
    price_upper,
)
from env_servers.webshop.instructions import ParsedInstruction, parse_instruction
from env_servers.webshop.reward import (
    Product,
    contains_phrase,
    option_matches,
    purchase_reward,
    type_words,
    words_of,
)

GENERATOR_VERSION = "1"
DISTRACTOR_KINDS = ("missing_attribute", "missing_option", "over_price", "other_type")
_FEATURE_TEMPLATES = (
    "{Attr}: chosen by customers who want {attr} every day.",
    "{Attr} - checked by our quality team before it ships.",
    "Made to be {attr}, as the name says.",
)
_GENERIC_FEATURES = (
    "Satisfaction guaranteed: contact us with any question about your order.",
    "Ships in recyclable packaging.",
    "Backed by a one-year limited warranty.",
    "Designed and tested by our own team.",
)
_DESCRIPTION_TAIL = "Every order is packed with care and shipped within two days."
_REVIEWS = (
    ("Exactly what I wanted", 5, "Arrived quickly and works as described."),
    ("Good value", 4, "Does the job well for the price."),
    ("Okay", 3, "Fine, but nothing special."),
    ("Would buy again", 5, "Second time ordering this one."),
    ("Not bad", 4, "Solid, one small scratch on arrival."),
)


@dataclass
class GeneratedCatalog:
    products: list[Product] = field(default_factory=list)
    goals: list[Goal] = field(default_factory=list)   # in episode order (fixed_0 first)
    dropped_distractors: int = 0


def generate_catalog(instructions: Sequence[str], seed: int = 0) -> GeneratedCatalog:
    """Goals (in the seeded episode order) and products for `instructions`."""
    catalog = GeneratedCatalog()
    goals_by_index: list[Goal] = []
    used_asins: set[str] = set()
    for index, instruction in enumerate(instructions):
        goal, products, dropped = generate_goal(index, instruction, seed, used_asins)
        goals_by_index.append(goal)
        catalog.products.extend(products)
        catalog.dropped_distractors += dropped
    catalog.goals = [goals_by_index[i] for i in episode_order(len(goals_by_index))]
    return catalog


def generate_goal(index: int, instruction: str, seed: int,
                  used_asins: set[str]) -> tuple[Goal, list[Product], int]:
    """The goal of one instruction, its target and its checked distractors."""
    rng = random.Random(f"webshop:{seed}:{index}")
    parsed = parse_instruction(instruction)
    maker = _ProductMaker(index, seed, parsed, rng, used_asins)
    price = _price(rng)
    upper = price_upper(price, rng)
    target = maker.product("target", price=price)
    goal: Goal = {
        "asin": target["asin"],
        "instruction_text": instruction_with_price(instruction, upper),
        "instruction": instruction,
        "attributes": list(parsed.attributes),
        "goal_options": dict(parsed.options),
        "price_upper": upper,
        "query": target["query"],
        "category": target["category"],
        "product_category": target["product_category"],
        "type_text": parsed.product_type,
        "name": target["Title"],
        "source_index": index,
    }
    products, dropped = [target], 0
    for kind in _distractor_kinds(parsed):
        distractor = maker.product(kind, price=_distractor_price(kind, price, upper, rng))
        if purchase_reward(distractor, goal, distractor["price"],
                           best_options(distractor, goal)).total < 1.0:
            products.append(distractor)
        else:
            used_asins.discard(distractor["asin"])
            dropped += 1
    return goal, products, dropped


def best_options(product: Product, goal: Goal) -> dict[str, str]:
    """The options a careful buyer picks: the goal's value where offered."""
    chosen = {}
    for name, values in product.get("options", {}).items():
        wanted = goal.get("goal_options", {}).get(name)
        if wanted in values:
            chosen[name] = wanted
    return chosen


def _distractor_kinds(parsed: ParsedInstruction) -> Iterator[str]:
    for kind in DISTRACTOR_KINDS:
        if kind == "missing_attribute" and not parsed.attributes:
            continue
        if kind == "missing_option" and not parsed.options:
            continue
        yield kind


def _price(rng: random.Random) -> float:
    dollars = math.exp(rng.uniform(math.log(4), math.log(180)))
    return round(math.floor(dollars) + rng.choice((0.49, 0.95, 0.99)), 2)


def _distractor_price(kind: str, price: float, upper: float, rng: random.Random) -> float:
    """Over the bound for "over_price"; otherwise near the target's price, within it."""
    if kind == "over_price":
        return round(upper + rng.uniform(1, 40), 2)
    candidate = price * rng.uniform(0.7, 1.3)
    if candidate > upper:
        candidate = price * rng.uniform(0.7, 1.0)
    return round(max(1.99, candidate), 2)


def _title_case(text: str) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in text.split())


class _ProductMaker:
    """Builds the products of one goal; each `product(kind)` differs from the
    target in the way its kind says."""

    def __init__(self, index: int, seed: int, parsed: ParsedInstruction, rng: random.Random,
                 used_asins: set[str]):
        self.index, self.seed, self.parsed, self.rng = index, seed, parsed, rng
        self.used_asins = used_asins
        # Text every product of this goal may show: an option value found in
        # it would count as matched (WebShop's fallback), so none may be.
        shared_text = words_of(" ".join([
            *parsed.attributes, parsed.product_type, *vocab.OTHER_TYPES,
            *_FEATURE_TEMPLATES, *_GENERIC_FEATURES, _DESCRIPTION_TAIL]))
        self.option_values = {name: _option_values(name, value, rng, shared_text)
                              for name, value in parsed.options.items()}

    def product(self, kind: str, price: float) -> Product:
        rng, parsed = self.rng, self.parsed
        attributes = list(parsed.attributes)
        options = {name: list(values) for name, values in self.option_values.items()}
        product_type, type_text = parsed.product_type, parsed.product_type
        if kind == "missing_attribute":
            attributes.pop(rng.randrange(len(attributes)))
        elif kind == "missing_option":
            name = rng.choice(sorted(options))
            options[name] = [v for v in options[name] if v != parsed.options[name]]
        elif kind == "other_type":
            type_text = _other_type(parsed.product_type, rng)
            product_type = f"{parsed.product_type} {type_text}"
        brand = _brand(rng)
        title = _title(brand, attributes, product_type, rng)
        features = [rng.choice(_FEATURE_TEMPLATES).format(Attr=a.capitalize(), attr=a)
                    for a in attributes] + rng.sample(_GENERIC_FEATURES, 2)
        description = (f"{_title_case(product_type)} by {brand}"
                       + (f": {_joined(attributes)}." if attributes else ".")
                       + " " + _DESCRIPTION_TAIL)
        reviews = [dict(zip(("title", "score", "body"), r)) for r in rng.sample(_REVIEWS, 2)]
        return {
            "asin": self._asin(kind),
            "Title": title,
            "Description": description,
            "BulletPoints": features,
            "Attributes": attributes,
            "options": options,
            "price": price,
            "pricing": [price],
            "Price": f"${price:.2f}",
            "Rating": round(sum(r["score"] for r in reviews) / len(reviews), 1),
            "Reviews": reviews,
            "query": type_text,
            "category": "generated",
            "product_category": "",
            "type_text": type_text,
            "kind": kind,
            "goal_index": self.index,
        }

    def _asin(self, kind: str) -> str:
        for salt in range(100):
            digest = hashlib.sha256(f"{self.seed}:{self.index}:{kind}:{salt}".encode()).digest()
            asin = "B0" + "".join(_ASIN_ALPHABET[b % len(_ASIN_ALPHABET)] for b in digest[:8])
            if asin not in self.used_asins:
                self.used_asins.add(asin)
                return asin
        raise RuntimeError("could not find a free product id")


_ASIN_ALPHABET = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ"


def _joined(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _title(brand: str, attributes: list[str], product_type: str, rng: random.Random) -> str:
    lead, rest = (attributes[:1], attributes[1:]) if rng.random() < 0.6 else ([], attributes)
    title = " ".join([brand, *(_title_case(a) for a in lead), _title_case(product_type)])
    if rest:
        title += ", " + ", ".join(_title_case(a) for a in rest)
    return title


def _brand(rng: random.Random) -> str:
    syllables = rng.sample(vocab.BRAND_SYLLABLES, rng.choice((2, 2, 3)))
    return "".join(syllables).capitalize()


_OTHER_TYPE_WORDS = [(t, type_words(t)) for t in vocab.OTHER_TYPES]


def _other_type(product_type: str, rng: random.Random) -> str:
    """An accessory type sharing no word with the goal's type."""
    taken = type_words(product_type)
    return rng.choice([t for t, words in _OTHER_TYPE_WORDS if not words & taken])


# ------------------------------------------------------------ option values
def _option_values(name: str, value: str, rng: random.Random, shared_text: str) -> list[str]:
    """The goal's value plus 2-3 alternatives that never count as it."""
    alternatives = [v for v in _alternatives(name, value, rng)
                    if _distinct(name, v, value) and not contains_phrase(shared_text, v)]
    alternatives = list(dict.fromkeys(alternatives))[: rng.choice((2, 3))]
    values = alternatives + [value]
    rng.shuffle(values)
    return values


def _distinct(name: str, candidate: str, value: str) -> bool:
    probe = {"Title": "", "BulletPoints": [], "Description": ""}
    return candidate != value and not option_matches(probe, name, candidate, [value], text="  ") \
        and not contains_phrase(value, candidate)


def _alternatives(name: str, value: str, rng: random.Random) -> list[str]:
    if name == "color":
        pool = [c for c in vocab.COLORS if not set(c.split()) & set(value.split())]
        return rng.sample(pool, 4)
    if name == "flavor name":
        return rng.sample([f for f in vocab.FLAVORS if f not in value], 4)
    if name == "scent":
        return rng.sample([s for s in vocab.SCENTS if s not in value], 4)
    numbers = re.findall(r"\d+(?:\.\d+)?", value)
    if numbers:
        return _numeric_alternatives(value, numbers, rng)
    for family in (vocab.CLOTHING_SIZES, vocab.BED_SIZES):
        if value in family:
            return rng.sample([v for v in family if v != value], min(4, len(family) - 1))
    return [f"{value} (pack of {n})" for n in rng.sample((2, 3, 4, 6), 3)] + ["one size"]


def _numeric_alternatives(value: str, numbers: list[str], rng: random.Random) -> list[str]:
    """Same pattern, other numbers: "4 ounce (pack of 2)" -> "8 ounce (pack of 2)"."""
    results = []
    for _ in range(6):
        position = rng.randrange(len(numbers))
        old = numbers[position]
        factor = rng.choice((0.5, 2, 3, 1.5))
        new = float(old) * factor
        new_text = (f"{new:g}" if "." in old or new != int(new) else str(int(new)))
        if new_text == old or new <= 0:
            new_text = str(int(float(old)) + rng.choice((1, 2, 4)))
        matches = list(re.finditer(r"\d+(?:\.\d+)?", value))
        match = matches[position]
        results.append(value[:match.start()] + new_text + value[match.end():])
    return results
