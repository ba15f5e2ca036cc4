"""ListTasks paging: page sizes and opaque page tokens.

A token encodes the split it belongs to and the offset of the next page. It is
opaque to clients but not secret; anything malformed, from another split, or
past the end raises `InvalidRequest`.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence

from env_servers.core.errors import InvalidRequest

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000


def page_size(requested: int) -> int:
    """0 means the default (100); larger than 1000 is capped at 1000."""
    if requested <= 0:
        return DEFAULT_PAGE_SIZE
    return min(requested, MAX_PAGE_SIZE)


def encode_token(split: str, offset: int) -> str:
    raw = json.dumps({"split": split, "offset": offset}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode("utf-8")).decode("ascii").rstrip("=")


def decode_token(token: str, split: str, total: int) -> int:
    """The offset a token points at; `InvalidRequest` if it is not usable here."""
    if not token:
        return 0
    try:
        padded = token + "=" * (-len(token) % 4)
        document = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
        offset = document["offset"]
        token_split = document["split"]
    except (binascii.Error, UnicodeError, ValueError, TypeError, KeyError) as error:
        raise InvalidRequest(
            "page_token is not one this server issued; pass next_page_token from "
            "the previous ListTasks response, or '' for the first page"
        ) from error
    if token_split != split:
        raise InvalidRequest(
            f"page_token belongs to split {token_split!r}, not {split!r}; "
            "keep the same split while paging"
        )
    if not isinstance(offset, int) or not 0 < offset <= total:
        raise InvalidRequest("page_token points outside the task list; start again with ''")
    return offset


def page(
    items: Sequence[str], split: str, token: str, requested_size: int
) -> tuple[list[str], str]:
    """One page of `items` and the token of the next page ('' at the end)."""
    start = decode_token(token, split, len(items))
    end = start + page_size(requested_size)
    next_token = encode_token(split, end) if end < len(items) else ""
    return list(items[start:end]), next_token
