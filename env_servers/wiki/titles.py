"""Tolerant title keys: how a searched entity is matched against page titles.

`title_key` folds case, accents, punctuation, underscores and spacing, so
"ed wood", "Ed_Wood" and "Ed Wood!" share a key. `base_key` also drops a
trailing disambiguation suffix in parentheses: "Ed Wood (film)" -> "ed wood".
"""

from __future__ import annotations

import html
import re
import unicodedata

_SUFFIX = re.compile(r"\s*\([^()]*\)\s*$")
_NON_WORD = re.compile(r"[\W_]+")


def clean_title(title: str) -> str:
    """A display title: HTML entities decoded, whitespace collapsed."""
    return " ".join(html.unescape(title).split())


def title_key(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", html.unescape(text))
    without_marks = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(_NON_WORD.sub(" ", without_marks.casefold()).split())


def strip_suffix(title: str) -> str:
    """The title without a trailing "(...)" disambiguation suffix."""
    stripped = _SUFFIX.sub("", title)
    return stripped if stripped.strip() else title


def base_key(title: str) -> str:
    return title_key(strip_suffix(title))


def search_terms(text: str, limit: int = 16) -> list[str]:
    """The distinct words of `text` (folded like `title_key`), for full-text search."""
    words = title_key(text).split()
    return list(dict.fromkeys(words))[:limit]
