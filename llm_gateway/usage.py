"""Token and call accounting per run, with bounded memory."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, replace


@dataclass
class UsageCounts:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0       # of prompt_tokens, served from the prompt cache
    draft_tokens: int = 0               # proposed by speculative decoding (not in completion_tokens)
    draft_accepted_tokens: int = 0      # of draft_tokens, those the model accepted

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: "UsageCounts") -> None:
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cached_prompt_tokens += other.cached_prompt_tokens
        self.draft_tokens += other.draft_tokens
        self.draft_accepted_tokens += other.draft_accepted_tokens


class UsageLedger:
    """Cumulative usage per run_id (least recently used runs are forgotten
    beyond `max_runs`) plus a grand total over every call ever recorded.

    Its memory is bounded by `max_runs` entries of a run id of at most 128
    characters each (the gateway refuses longer ids before recording).
    """

    def __init__(self, max_runs: int = 10_000):
        self._max_runs = max_runs
        self._runs: OrderedDict[str, UsageCounts] = OrderedDict()
        self._total = UsageCounts()

    def run(self, run_id: str) -> UsageCounts:
        """A copy of the run's usage (zeros for an unknown or forgotten run)."""
        counts = self._runs.get(run_id)
        return replace(counts) if counts is not None else UsageCounts()

    def total(self) -> UsageCounts:
        return replace(self._total)

    def record(self, run_id: str, usage: UsageCounts) -> UsageCounts:
        """Adds one call's usage; returns the run's cumulative usage after it.

        An empty run_id only counts towards the total and returns `usage`.
        """
        self._total.add(usage)
        if not run_id:
            return replace(usage)
        counts = self._runs.pop(run_id, None) or UsageCounts()
        counts.add(usage)
        self._runs[run_id] = counts
        while len(self._runs) > self._max_runs:
            self._runs.popitem(last=False)
        return replace(counts)

    def __len__(self) -> int:
        return len(self._runs)
