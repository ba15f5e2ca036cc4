"""Hypothesis strategies that build any protobuf request from its descriptor.

`message_of(descriptor, hints)` draws a message of that type: every field may
be set or left out; strings run from empty to 20,000 characters of any
Unicode; integers span the field's whole range; doubles include NaN and the
infinities; enums include values the schema does not know; repeated and map
fields get a few entries; oneofs get one member; google.protobuf.Struct gets
JSON-like values with non-finite numbers mixed in. `hints` maps a field name
to a strategy of plausible values (a live session id, a real task id, a valid
blob), so draws also reach past the first validation step.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from google.protobuf import struct_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from hypothesis import strategies as st

MAX_DEPTH = 3
_INT_RANGES = {
    FieldDescriptor.TYPE_INT32: (-2**31, 2**31 - 1), FieldDescriptor.TYPE_SINT32: (-2**31, 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-2**31, 2**31 - 1), FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1), FieldDescriptor.TYPE_INT64: (-2**63, 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-2**63, 2**63 - 1), FieldDescriptor.TYPE_SFIXED64: (-2**63, 2**63 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1), FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}

# Mostly short text, sometimes very long: long input is where echoes went wrong.
texts = st.one_of(st.text(max_size=40), st.text(max_size=40),
                  st.text(min_size=1, max_size=4).map(lambda s: s * 5_000))
numbers = st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([math.nan, math.inf, -math.inf, 0.0, -0.0, 1e308]))
ints = st.integers(min_value=-2**31, max_value=2**31 - 1)


def json_values(depth: int = 0):
    leaves = st.one_of(st.none(), st.booleans(), numbers, st.text(max_size=30),
                       st.integers(-10, 10).map(float))
    if depth >= 2:
        return leaves
    return st.one_of(leaves, st.lists(json_values(depth + 1), max_size=4),
                     st.dictionaries(st.text(max_size=10), json_values(depth + 1), max_size=4))


@st.composite
def structs(draw) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    for key, value in draw(st.dictionaries(st.text(max_size=12), json_values(), max_size=4)).items():
        _set_value(struct.fields[key], value)
    return struct


def _set_value(target: struct_pb2.Value, value) -> None:
    """Like Struct.update, but keeps NaN and the infinities (a hostile client can send them)."""
    if value is None:
        target.null_value = struct_pb2.NULL_VALUE
    elif isinstance(value, bool):
        target.bool_value = value
    elif isinstance(value, float):
        target.number_value = value
    elif isinstance(value, str):
        target.string_value = value
    elif isinstance(value, list):
        target.list_value.SetInParent()
        for item in value:
            _set_value(target.list_value.values.add(), item)
    else:
        target.struct_value.SetInParent()
        for key, item in value.items():
            _set_value(target.struct_value.fields[key], item)


def _scalar(field: FieldDescriptor):
    kind = field.type
    if kind in _INT_RANGES:
        low, high = _INT_RANGES[kind]
        return st.one_of(st.integers(low, high), st.integers(max(low, -3), min(high, 70)))
    if kind in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return numbers if kind == FieldDescriptor.TYPE_DOUBLE else st.floats(width=32)
    if kind == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if kind == FieldDescriptor.TYPE_STRING:
        return texts
    if kind == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=300)
    if kind == FieldDescriptor.TYPE_ENUM:
        return st.one_of(st.sampled_from([v.number for v in field.enum_type.values]),
                         st.integers(-5, 1000))
    raise TypeError(f"no strategy for field type {kind}")


def message_of(descriptor: Descriptor, hints: Mapping[str, st.SearchStrategy] | None = None,
               depth: int = 0) -> st.SearchStrategy:
    """Messages of `descriptor`'s type (hints win over generic values for named fields)."""
    hints = hints or {}
    if descriptor.full_name == "google.protobuf.Struct":
        return structs()

    @st.composite
    def build(draw):
        message = _message_class(descriptor)()
        oneofs_done: set[str] = set()
        for field in descriptor.fields:
            oneof = field.containing_oneof
            if oneof is not None and not oneof.name.startswith("_"):
                if oneof.name in oneofs_done or not draw(st.booleans()):
                    continue
                oneofs_done.add(oneof.name)
            elif not draw(st.booleans()):
                continue
            _fill(draw, message, field, hints, depth)
        return message

    return build()


def _fill(draw, message, field: FieldDescriptor, hints, depth: int) -> None:
    repeated = field.is_repeated
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        key_field, value_field = field.message_type.fields
        entries = draw(st.dictionaries(_scalar(key_field), _value_strategy(value_field, hints, depth),
                                       max_size=3))
        target = getattr(message, field.name)
        for key, value in entries.items():
            if value_field.message_type is None:
                target[key] = value
            else:
                target[key].CopyFrom(value)
        return
    strategy = hints.get(field.name)
    if strategy is None:
        strategy = _value_strategy(field, hints, depth)
    if repeated:
        values = draw(st.lists(strategy, max_size=4))
        target = getattr(message, field.name)
        for value in values:
            if field.message_type is None:
                target.append(value)
            else:
                target.add().CopyFrom(value)
    elif field.message_type is None:
        setattr(message, field.name, draw(strategy))
    else:
        getattr(message, field.name).CopyFrom(draw(strategy))


def _value_strategy(field: FieldDescriptor, hints, depth: int):
    if field.message_type is None:
        return _scalar(field)
    if depth >= MAX_DEPTH:
        return st.just(_message_class(field.message_type)())
    return message_of(field.message_type, hints, depth + 1)


def _message_class(descriptor: Descriptor):
    from google.protobuf import message_factory
    return message_factory.GetMessageClass(descriptor)
