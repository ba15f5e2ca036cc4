"""Non-finite numbers in a `google.protobuf.Struct`: JSON has none, so no server takes them.

`non_finite_at(struct)` is the path of the first NaN or infinite number in a
Struct (e.g. "board[7]"), or None when every number is finite. Servers call it
on client-supplied Structs (inline tasks) and answer INVALID_ARGUMENT naming
the path, rather than failing later when the value is converted to JSON.
"""

from __future__ import annotations

import math

from google.protobuf import struct_pb2


def non_finite_at(struct: struct_pb2.Struct, prefix: str = "") -> str | None:
    for key, value in struct.fields.items():
        found = _in_value(value, f"{prefix}.{key}" if prefix else key)
        if found is not None:
            return found
    return None


def _in_value(value: struct_pb2.Value, path: str) -> str | None:
    kind = value.WhichOneof("kind")
    if kind == "number_value":
        return None if math.isfinite(value.number_value) else path
    if kind == "struct_value":
        return non_finite_at(value.struct_value, path)
    if kind == "list_value":
        for index, item in enumerate(value.list_value.values):
            found = _in_value(item, f"{path}[{index}]")
            if found is not None:
                return found
    return None
