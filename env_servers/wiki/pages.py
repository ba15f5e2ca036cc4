"""A Wikipedia page as ReAct sees it: a title and a list of sentences.

Observation formats (ReAct, Yao et al.):
  * a page found by Search shows its first 5 sentences joined by spaces;
  * Lookup[keyword] shows "(Result i / n) <sentence>" for the i-th sentence
    containing the keyword (case-insensitive), and "No more results." past the end.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

SENTENCES_SHOWN = 5
NO_MORE_RESULTS = "No more results."
# A sentence ends at . ! or ? followed by space and a capital, digit, quote or bracket,
# unless the word before the stop is a common abbreviation or an initial.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
_ABBREVIATION = re.compile(
    r"(?:\b(?:Mr|Mrs|Ms|Dr|Prof|St|Jr|Sr|Mt|Ft|Gen|Col|Lt|Sgt|Capt|Rev|Gov|Sen|Rep|"
    r"No|Nos|Vol|vs|etc|approx|ca|c|Inc|Co|Ltd|Corp|Bros|U\.S|U\.K)|\b[A-Z])\.$")


@dataclass(frozen=True)
class Page:
    title: str
    sentences: tuple[str, ...]

    def summary(self, max_chars: int = 0) -> str:
        """The first SENTENCES_SHOWN sentences; with `max_chars`, only as many whole
        sentences as fit in it (always the first)."""
        shown = list(self.sentences[:SENTENCES_SHOWN])
        while max_chars and len(shown) > 1 and len(" ".join(shown)) > max_chars:
            shown.pop()
        return " ".join(shown)

    def matches(self, keyword: str) -> list[str]:
        """The sentences containing `keyword`, case-insensitively, in page order."""
        wanted = keyword.lower()
        return [s for s in self.sentences if wanted in s.lower()]


def clean_sentences(sentences: Iterable[str]) -> tuple[str, ...]:
    """Sentences stripped of surrounding whitespace, empty ones dropped."""
    return tuple(" ".join(s.split()) for s in sentences if s and s.strip())


def split_sentences(paragraphs: Sequence[str]) -> tuple[str, ...]:
    """Sentences of free-text paragraphs (used for live pages)."""
    sentences: list[str] = []
    for paragraph in paragraphs:
        pieces = _SENTENCE_END.split(" ".join(paragraph.split()))
        merged: list[str] = []
        for piece in pieces:
            if merged and _ABBREVIATION.search(merged[-1]):
                merged[-1] += " " + piece
            else:
                merged.append(piece)
        sentences.extend(merged)
    return clean_sentences(sentences)


def lookup_observation(matches: Sequence[str], cursor: int) -> str:
    """The observation for the match at 0-based `cursor`."""
    if cursor >= len(matches):
        return NO_MORE_RESULTS
    return f"(Result {cursor + 1} / {len(matches)}) {matches[cursor]}"


def not_found_observation(entity: str, similar: Sequence[str]) -> str:
    return f"Could not find [{entity}]. Similar: {list(similar)}."
