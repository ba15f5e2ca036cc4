"""Goals: what one episode asks the agent to buy, and the rules shared by
every catalog source (price bound, instruction text, episode order).

A goal is a JSON dict with the keys the reward reads (as in WebShop):
  asin               the target product
  instruction_text   what the agent sees, ending ", and price lower than X dollars"
  attributes         attribute phrases, e.g. ["gluten free"]
  goal_options       option values, e.g. {"size": "4 ounce (pack of 2)"}
  price_upper        the price bound in dollars (1000000 when there is none)
  query, product_category, type_text   for the product-type factor
"""

from __future__ import annotations

import random
from typing import Any

Goal = dict[str, Any]

# WebShop's price bounds: the bound is one of the next four multiples of ten
# above the target's price (the larger of two drawn), as in its goal.py.
PRICE_RANGE = [10.0 * i for i in range(1, 100)]
NO_PRICE_BOUND = 1_000_000.0
EPISODE_ORDER_SEED = 233  # WebShop shuffles its goals with random.seed(233)


def price_upper(price: float, rng: random.Random) -> float:
    """The bound for a target priced `price` (NO_PRICE_BOUND above $980)."""
    candidates = [p for p in PRICE_RANGE if p > price][:4]
    if len(candidates) < 2:
        return NO_PRICE_BOUND
    return max(rng.sample(candidates, 2))


def instruction_with_price(instruction: str, upper: float) -> str:
    """The instruction as shown: ", and price lower than X dollars" appended."""
    text = instruction.strip().rstrip(".").strip()
    if upper >= NO_PRICE_BOUND:
        return text
    return f"{text}, and price lower than {upper:.2f} dollars"


def episode_order(count: int, seed: int = EPISODE_ORDER_SEED) -> list[int]:
    """A seeded permutation: episode fixed_i plays goal number order[i]."""
    order = list(range(count))
    random.Random(seed).shuffle(order)
    return order


def goal_option_values(goal: Goal) -> list[str]:
    """The goal's option values, whether stored as a dict or a list."""
    options = goal.get("goal_options") or []
    if isinstance(options, dict):
        return [str(v) for v in options.values()]
    return [str(v) for v in options]


def task_id(position: int) -> str:
    return f"fixed_{position}"


# The original's splits of human goals (its imitation-learning code): the
# first 500 shuffled goals are the test set, the next 1,000 the dev set.
SPLITS = ("test", "dev", "train", "all")
_SPLIT_RANGES = {"test": (0, 500), "dev": (500, 1500), "train": (1500, None), "all": (0, None)}


def split_positions(split: str, count: int) -> range:
    """Episode positions of a split among `count` goals (KeyError if unknown)."""
    start, end = _SPLIT_RANGES[split]
    end = count if end is None else min(end, count)
    return range(min(start, count), end)


def parse_task_id(task: str, count: int) -> int | None:
    """The position of "fixed_N" if 0 <= N < count, else None."""
    prefix, _, number = task.partition("_")
    if prefix != "fixed" or not number.isdigit() or len(number) > 7:
        return None
    position = int(number)
    return position if position < count else None
