"""Length-prefixed JSON frames between the host and a worker (4-byte big-endian length; requests add a flags byte)."""

from __future__ import annotations

import asyncio
import json
import struct

HEADER = struct.Struct(">I")
REQUEST_HEADER = struct.Struct(">IB")  # body length, flags (reserved: 0)


class WorkerLost(Exception):
    """The worker closed its channel, sent garbage, or overran a frame limit."""


def encode(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return HEADER.pack(len(body)) + body


def encode_request(message: dict) -> bytes:
    """A request frame: its length and a flags byte (reserved, 0) come first.

    Nothing in the header says what kind of run this is: every judge forks its
    tester before it reads the body, so every run looks alike from inside."""
    body = json.dumps(message).encode()
    return REQUEST_HEADER.pack(len(body), 0) + body


async def read_frame(reader: asyncio.StreamReader, max_bytes: int) -> dict:
    """Read one frame; raise WorkerLost on EOF, oversize or invalid JSON."""
    try:
        header = await reader.readexactly(HEADER.size)
        (size,) = HEADER.unpack(header)
        if size > max_bytes:
            raise WorkerLost(f"worker sent a {size}-byte frame (limit {max_bytes})")
        body = await reader.readexactly(size)
    except (asyncio.IncompleteReadError, ConnectionError) as error:
        raise WorkerLost("worker closed its channel") from error
    try:
        message = json.loads(body)
    except ValueError as error:
        raise WorkerLost("worker sent a frame that is not JSON") from error
    if not isinstance(message, dict):
        raise WorkerLost("worker sent a frame that is not a JSON object")
    return message
