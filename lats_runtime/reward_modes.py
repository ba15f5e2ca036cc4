"""Reward modes: the wire enum (lats.environment.v2.RewardMode) and the short names people type.

Flags, settings, bench records and printed figures use the short names
"none", "oracle" and "honest"; the protocol carries the enum. `to_wire` and
`name_of` convert between them; an unknown name is a ValueError that lists
the known ones.
"""

from __future__ import annotations

from lats_pb import environment_pb2

_PREFIX = "REWARD_MODE_"
NAMES: tuple[str, ...] = ("none", "oracle", "honest")


def to_wire(name: str) -> int:
    """The RewardMode value for a short name ("none", "oracle", "honest")."""
    if name not in NAMES:
        raise ValueError(f"reward mode {name!r} is not one of {', '.join(NAMES)}")
    return environment_pb2.RewardMode.Value(_PREFIX + name.upper())


def name_of(value: int) -> str:
    """The short name of a RewardMode value; "" for UNSPECIFIED or a value this build does not know."""
    if value == environment_pb2.REWARD_MODE_UNSPECIFIED:
        return ""
    try:
        return environment_pb2.RewardMode.Name(value)[len(_PREFIX):].lower()
    except ValueError:
        return ""
