"""Frames between the worker and the host over its channel (see framing.py for the host's side).

A request frame is a 4-byte big-endian body length, one flags byte (reserved,
0) and a JSON object; every other frame is a 4-byte length and a JSON object.
"""

import json
import os
import struct

HEADER = struct.Struct(">I")
REQUEST_HEADER = struct.Struct(">IB")  # body length, flags (reserved)
MAX_REQUEST_BYTES = 64 << 20


def read_exactly(fd, size):
    """`size` bytes from `fd`, or None at EOF."""
    chunks = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def receive_request_header(fd):
    """(body size, flags) of the next request, or None at EOF; ValueError for an oversized one."""
    header = read_exactly(fd, REQUEST_HEADER.size)
    if header is None:
        return None
    size, flags = REQUEST_HEADER.unpack(header)
    if size > MAX_REQUEST_BYTES:
        raise ValueError("request frame too large")
    return size, flags


def receive_request(fd):
    """The next request (its flags ignored), or None at EOF."""
    header = receive_request_header(fd)
    if header is None:
        return None
    body = read_exactly(fd, header[0])
    return None if body is None else json.loads(body)


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def send(fd, message):
    """Send `message` as one JSON frame."""
    body = json.dumps(message).encode()
    write_all(fd, HEADER.pack(len(body)) + body)
