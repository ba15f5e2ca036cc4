"""The recorded HotPotQA search (tests/recorded_search.py): `lats` in honest mode.

    python -m tests.wiki.e2e_search        # re-record with the embedded 1.5B model
                                           #   (--refresh: only the summary, from a replay)

A question through the three services, the platform's `lats` (adaptive
branching, merged states, answers by agreement) with the embedded default
model, honest rewards (the gold answer reaches only Score). Three iterations
and a stop class larger than the tree can fill, so the search always goes
back to an earlier snapshot at least once.
"""

from __future__ import annotations

from pathlib import Path

from tests.recorded_search import RecordedSearch

SEARCH = RecordedSearch(
    name="hotpotqa_9_lats_honest_qwen1.5b",
    folder=Path(__file__).parent / "recordings",
    environment="hotpotqa",
    task="hotpotqa/9",   # "Are Local H and For Against both from the United States?" -> yes
    config=dict(method="lats", n_samples=3, iterations=3, max_depth=5, seed=7,
                stop_class_size=8, value_weight=0.5, lm_value=True,
                budget={"max_calls": 14}),
    model="qwen2.5-coder-1.5b",
    env_vars={"LATS_HOTPOTQA_REWARD_MODE": "honest"},
)

if __name__ == "__main__":
    import sys

    SEARCH.refresh() if "--refresh" in sys.argv else SEARCH.record()
