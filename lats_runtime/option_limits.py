"""How the environment protocol counts Reset options against limits.max_option_bytes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def options_bytes(options: Mapping[str, str] | Iterable[tuple[str, str]]) -> int:
    """UTF-8 bytes of every key and value together (what limits.max_option_bytes bounds)."""
    pairs = options.items() if isinstance(options, Mapping) else options
    return sum(len(key.encode("utf-8")) + len(value.encode("utf-8")) for key, value in pairs)
