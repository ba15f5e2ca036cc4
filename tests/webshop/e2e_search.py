"""The recorded WebShop search (tests/recorded_search.py): `lats` in honest mode.

    python -m tests.webshop.e2e_search     # re-record with the embedded 1.5B model
                                           #   (--refresh: only the summary, from a replay)

One instruction of the generated catalog through the three services, the
platform's `lats` with the embedded default model, honest rewards ([Buy Now]
earns 0; Score alone judges the purchase). Three iterations of rollouts cut at
depth 3 and a stop class larger than the tree can fill, so the search goes
back to an earlier snapshot at least once within its 14 calls.
"""

from __future__ import annotations

from pathlib import Path

from tests.recorded_search import RecordedSearch

SEARCH = RecordedSearch(
    name="webshop_fixed_0_lats_honest_qwen1.5b",
    folder=Path(__file__).parent / "recordings",
    environment="webshop",
    task="fixed_0",
    config=dict(method="lats", n_samples=2, iterations=3, max_depth=3, seed=11,
                stop_class_size=8, value_weight=0.5, lm_value=True,
                budget={"max_calls": 14}),
    model="qwen2.5-coder-1.5b",
    env_vars={"LATS_WEBSHOP_REWARD_MODE": "honest"},
)

if __name__ == "__main__":
    import sys

    SEARCH.refresh() if "--refresh" in sys.argv else SEARCH.record()
