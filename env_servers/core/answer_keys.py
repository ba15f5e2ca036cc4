"""Answer keys: the identity of the answer a step gives (StepResult.answer_key).

Two step results with the same non-empty key give the same answer; "" means
the step gave none. On the wire a key is at most MAX_KEY_CHARS printable
ASCII characters. `answer_key(*parts)` makes one from any values a domain
compares answers by; `checked_answer_key` is what the servicer sends, so a
domain whose own key is longer or not printable ASCII still gives a valid,
equally discriminating key (its digest).
"""

from __future__ import annotations

import hashlib
import json

from lats_pb import environment_pb2

MAX_KEY_CHARS = 128
_DIGEST_CHARS = 32


def answer_key(*parts: object) -> str:
    """A short key for an answer made of `parts` (JSON-able values; equal parts, equal key)."""
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                           default=repr)
    return hashlib.sha256(canonical.encode()).hexdigest()[:_DIGEST_CHARS]


MAX_FACETS = 16
MAX_FACET_CHARS = 200


def checked_facets(facets) -> list[environment_pb2.AnswerFacet]:
    """A step's answer facets as sent: at most MAX_FACETS, names and values clipped
    to MAX_FACET_CHARS (never raises)."""
    return [environment_pb2.AnswerFacet(name=_clipped(name), value=_clipped(value))
            for name, value in list(facets)[:MAX_FACETS]]


def _clipped(text: object) -> str:
    text = str(text)
    return text if len(text) <= MAX_FACET_CHARS else text[:MAX_FACET_CHARS - 3] + "..."


def checked_answer_key(key: str) -> str:
    """`key` if it is a valid wire key, else its digest (never raises)."""
    if not key:
        return ""
    if len(key) <= MAX_KEY_CHARS and key.isascii() and key.isprintable():
        return key
    return answer_key(key)
