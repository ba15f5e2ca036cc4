"""How often the model's value replies parse, from a gateway recording: prints figures.

    python bench/parse_rates.py bench/results/DIR/exchanges.jsonl --env-name game24

`lats bench --gateway-arg=--record=FILE` appends every exchange to FILE. This
reads the value requests among them and parses each reply with the
environment's own prompt pack (its value pattern and range, as the planner
does): the share that parse, how the parsed scores spread over the pack's
range, and the replies cut short by the token limit. It also counts the
calls of every other purpose. Changes nothing.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from env_servers.registry import load_domain
from planner.evaluation import DEFAULT_VALUE_PATTERN, parse_value, value_range


def value_figures(exchanges: list[dict], pattern: str, low: float, high: float) -> dict:
    """Counts over the value replies: parsed, unparsed, cut short, and the parsed scores."""
    parsed, missed, cut = 0, 0, 0
    scores: Counter[float] = Counter()
    for exchange in exchanges:
        for choice in exchange["choices"]:
            value = parse_value(choice["text"], pattern, low, high)
            cut += choice.get("finish_reason") == "length"
            if value is None:
                missed += 1
            else:
                parsed += 1
                scores[round(value, 2)] += 1
    return {"replies": parsed + missed, "parsed": parsed, "cut_short": cut, "scores": scores}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("exchanges", type=Path, help="a gateway recording (JSONL)")
    parser.add_argument("--env-name", required=True,
                        help="the environment whose prompt pack parses the replies")
    args = parser.parse_args()
    exchanges = [json.loads(line) for line in args.exchanges.read_text().splitlines() if line]
    purposes = Counter(e["request"].get("purpose", "") for e in exchanges)
    pack = load_domain(args.env_name).describe().prompt_pack
    low, high = value_range(pack)
    figures = value_figures([e for e in exchanges if e["request"].get("purpose") == "value"],
                            pack.value_pattern or DEFAULT_VALUE_PATTERN, low, high)
    print(f"calls by purpose: {dict(purposes)}")
    replies = figures["replies"]
    if not replies:
        print("no value replies recorded")
        return
    print(f"value replies: {replies}; parsed {figures['parsed']} "
          f"({figures['parsed'] / replies:.0%}); cut short by the token limit "
          f"{figures['cut_short']}")
    spread = ", ".join(f"{score:.2f}: {count}" for score, count in sorted(figures["scores"].items()))
    print(f"parsed scores, rescaled to [0, 1] (the pack's range {low:g}..{high:g}): {spread}")


if __name__ == "__main__":
    main()
