"""Plain data across the judge/candidate boundary (standard library only).

Only None, bool, int, float, complex, str, bytes, list, tuple, dict, set and
frozenset (nested) cross, as JSON text: JSON's own scalars and arrays for
None, bool, int, float (NaN and infinities included), str and list, and a
one-key object for the rest ({"t": tuple items}, {"d": [[key, value], ...]},
{"s": set items}, {"f": frozenset items}, {"b": bytes as latin-1 text},
{"c": [real, imag]}, {"i": hex} for ints too long for decimal text).

`to_json` runs where the value was made (the candidate): a subclass of a plain
type crosses as its base type (an IntEnum as an int, a namedtuple as a tuple,
a Counter as a dict); anything else raises `NotPlainData` naming the type.
`from_json` runs in the judge and trusts nothing: any object that is not one
of the tags above raises ValueError, and what comes out is always built from
the plain types themselves, so no `__eq__` of the sender's survives the trip.
It is bounded too: a frame with MAX_ITEMS commas or more is refused before
anything is built (a container of k items holds k - 1 commas, so the items of
a frame are at most twice its commas plus its nesting depth), and sets,
frozensets and dicts hold at most MAX_HASHED_ITEMS items in all. Those are
filled one item at a time, so a value whose items all hash alike (its cost
grows with the square of their number) costs at most MAX_HASHED_ITEMS probes
per item, and a signal (the judge's alarm) can stop the building between two
items.

This file is also prepended to the sandbox worker's source (see channel.py).
"""

import json as _plain_json


class NotPlainData(Exception):
    """A value that cannot cross to the judge; the message names its type."""


def _tagged(tag, items):
    return {tag: items}


def _plain(value, depth):
    if depth > 200:
        raise NotPlainData("data nested more than 200 levels deep")
    kind = type(value)
    if value is None or kind is bool or kind is str or kind is float:
        return value
    if kind is int:
        return value if -(1 << 2000) < value < (1 << 2000) else {"i": hex(value)}
    if kind is list:
        return [_plain(item, depth + 1) for item in value]
    if kind is tuple:
        return {"t": [_plain(item, depth + 1) for item in value]}
    if kind is dict:
        return {"d": [[_plain(key, depth + 1), _plain(item, depth + 1)] for key, item in value.items()]}
    if kind is set:
        return {"s": [_plain(item, depth + 1) for item in value]}
    if kind is frozenset:
        return {"f": [_plain(item, depth + 1) for item in value]}
    if kind is bytes:
        return {"b": value.decode("latin-1")}
    if kind is complex:
        return {"c": [value.real, value.imag]}
    for base, as_base in _AS_BASE:
        if isinstance(value, base):  # a subclass: cross as its base type, read by the base's own methods
            return _plain(as_base(value), depth)
    raise NotPlainData("a %s object" % _type_name(value))


# The base type's value of a subclass instance, read through the base's own slots, never through
# methods the subclass may override (a list subclass whose __iter__ yields other items would cross
# as those items, where `==` in the program's own process compares the stored ones).
_AS_BASE = (
    (int, int.__int__), (float, float.__float__), (str, str.__str__), (bytes, lambda v: bytes(memoryview(v))),
    (complex, lambda v: complex(complex.real.__get__(v), complex.imag.__get__(v))),
    (list, lambda v: list(list.__iter__(v))), (tuple, lambda v: tuple(tuple.__iter__(v))),
    (dict, lambda v: dict(dict.items(v))), (frozenset, lambda v: frozenset(frozenset.__iter__(v))),
    (set, lambda v: set(set.__iter__(v))),
)


def _type_name(value):
    try:
        return type(value).__qualname__
    except BaseException:
        return "unnamed"


_ENCODER = _plain_json.JSONEncoder(separators=(",", ":"))  # made once: json.dumps(**options) makes one per call


def to_json(value):
    """`value` as JSON text; NotPlainData if any part of it is not plain data."""
    try:
        return _ENCODER.encode(_plain(value, 0))
    except RecursionError:
        raise NotPlainData("data nested too deeply (or containing itself)") from None


MAX_ITEMS = 1 << 20  # commas of one frame (see the docstring): about its items in all
MAX_HASHED_ITEMS = 1 << 17  # of which in sets, frozensets and dicts
_hashed_left = [MAX_HASHED_ITEMS]  # what the frame being decoded may still put in hashed containers


def _take_hashed(count):
    if count > _hashed_left[0]:
        raise ValueError("more than %d set or dict items in one value" % MAX_HASHED_ITEMS)
    _hashed_left[0] -= count


def _filled_set(items):
    _take_hashed(len(items))
    result = set()
    add = result.add
    for item in items:  # one item at a time: see the module's docstring
        add(item)
    return result


def _from_tag(pairs):
    if len(pairs) != 1:
        raise ValueError("a plain-data object has exactly one tag")
    tag, items = pairs[0]
    if tag == "t" and type(items) is list:
        return tuple(items)
    if tag == "d" and type(items) is list:
        _take_hashed(len(items))
        result = {}
        for pair in items:
            if type(pair) is not list or len(pair) != 2:
                raise ValueError("a dict crosses as [key, value] pairs")
            result[pair[0]] = pair[1]
        return result
    if tag == "s" and type(items) is list:
        return _filled_set(items)
    if tag == "f" and type(items) is list:
        return frozenset(_filled_set(items))
    if tag == "b" and type(items) is str:
        return items.encode("latin-1")
    if tag == "c" and type(items) is list and len(items) == 2:
        real, imag = items
        if type(real) in (int, float) and type(imag) in (int, float):
            return complex(real, imag)
    if tag == "i" and type(items) is str:
        return int(items, 16)
    raise ValueError("unknown plain-data tag %r" % (tag[:20],))


_DECODER = _plain_json.JSONDecoder(object_pairs_hook=_from_tag)


def from_json(text):
    """The plain value encoded in `text`; ValueError (or TypeError) for anything else, or too much."""
    if isinstance(text, (bytes, bytearray)):
        if text.count(b",") >= MAX_ITEMS:
            raise ValueError("a value of more than %d items in all" % MAX_ITEMS)
        text = text.decode("utf-8", "surrogatepass")
    elif text.count(",") >= MAX_ITEMS:
        raise ValueError("a value of more than %d items in all" % MAX_ITEMS)
    _hashed_left[0] = MAX_HASHED_ITEMS
    try:
        return _DECODER.decode(text)
    except RecursionError:
        raise ValueError("plain data nested too deeply") from None
