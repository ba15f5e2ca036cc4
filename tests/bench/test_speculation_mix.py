"""bench/speculation_mix.py: which request type a recorded call is, and the report's figures."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("speculation_mix", ROOT / "bench" / "speculation_mix.py")
speculation_mix = importlib.util.module_from_spec(spec)
spec.loader.exec_module(speculation_mix)


def test_the_committed_mix_holds_every_kind_of_call_a_search_makes():
    mix = speculation_mix.load_mix([ROOT / "bench/request_mix/mbpp_hard_0_lats_qwen0.5b.jsonl",
                                    ROOT / "tests/wiki/recordings/hotpotqa_9_lats_honest_qwen1.5b.jsonl"])
    kinds = Counter(item["type"] for item in mix)
    assert kinds == {"setup": 1, "greedy": 2, "samples": 8, "refine": 3, "value": 6, "reflect": 2}
    first_program = mix[1]["request"]
    assert mix[1]["type"] == "greedy" and first_program["temperature"] == 0.0
    assert all("[attempt 2]:" in item["request"]["messages"][-1][1] or
               "[attempt 3]:" in item["request"]["messages"][-1][1]
               for item in mix if item["type"] == "refine")


def _row(mode, index, kind, seconds, tokens, texts, drafted=0, accepted=0, greedy=True):
    return {"model": "m", "mode": mode, "file": "f", "index": index, "type": kind,
            "seconds": seconds, "completion_tokens": tokens, "draft_tokens": drafted,
            "draft_accepted_tokens": accepted, "greedy": greedy, "texts": texts}


def test_the_report_gives_ratios_acceptance_and_where_greedy_texts_diverge():
    rows = [_row("off", 0, "refine", 10.0, 100, ["abc def"]),
            _row("off", 1, "value", 2.0, 10, ["score 7"]),
            _row("ngram", 0, "refine", 5.0, 100, ["abc def"], drafted=80, accepted=60),
            _row("ngram", 1, "value", 2.5, 10, ["score 8"], drafted=4, accepted=0)]
    text = speculation_mix.report(rows)
    assert "| refine | 1 | 10.0, 10.0 s | 20.0 (2.00x), 75% of 80, 5.0 s |" in text
    assert "| all | 2 | 9.2, 6.0 s | 14.7 (1.60x), 71% of 84, 3.8 s |" in text
    assert "greedy texts equal to off under ngram: 1/2" in text
    assert "f#1 (value), char 6 of 7: 'score 8' vs 'score 7'" in text


def test_a_mode_cut_short_is_compared_with_off_on_its_own_requests_only():
    rows = [_row("off", 0, "refine", 10.0, 100, ["a"]), _row("off", 1, "refine", 1.0, 100, ["b"]),
            _row("draft", 0, "refine", 20.0, 100, ["a"], drafted=10, accepted=5)]
    text = speculation_mix.report(rows)
    assert "| refine | 2 | 18.2, 5.5 s | 5.0 (0.50x), 50% of 10, 20.0 s (1 requests) |" in text
