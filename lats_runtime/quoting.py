"""Client input quoted in error messages: a short prefix, never the whole of it.

A message that echoes a 16 KB field in full makes the status itself too big
for the client's metadata limit (it then sees RESOURCE_EXHAUSTED instead of
the intended error). `quoted(text)` is `repr` of at most `limit` characters,
with the full length named when it was cut.
"""

from __future__ import annotations

DEFAULT_LIMIT = 64


def quoted(text: str, limit: int = DEFAULT_LIMIT) -> str:
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"


def quoted_list(items, most: int = 3, limit: int = 40) -> str:
    """Up to `most` items, each quoted and cut to `limit` characters, and how many more."""
    items = sorted(items)
    shown = ", ".join(quoted(item, limit) for item in items[:most])
    rest = len(items) - most
    return shown + (f" and {rest} more" if rest > 0 else "")
