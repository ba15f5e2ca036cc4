"""Conversions between plain JSON-like dicts and `google.protobuf.Struct`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from google.protobuf import json_format, struct_pb2


def to_struct(values: Mapping[str, Any] | None) -> struct_pb2.Struct:
    """A Struct holding `values`; non-JSON values are stored as their str()."""
    struct = struct_pb2.Struct()
    if values:
        struct.update(json.loads(json.dumps(dict(values), default=str)))
    return struct


def from_struct(struct: struct_pb2.Struct) -> dict[str, Any]:
    """The plain dict a Struct holds (numbers come back as floats)."""
    return json_format.MessageToDict(struct)
