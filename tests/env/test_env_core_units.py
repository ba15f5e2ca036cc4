"""Snapshot codec and page tokens, without a server."""

from __future__ import annotations

import pytest

from env_servers.core import InvalidRequest
from env_servers.core.paging import decode_token, encode_token, page
from env_servers.core.snapshots import SnapshotCodec, SnapshotPayload, snapshot_key


PAYLOAD = SnapshotPayload(state={"left": ["8/3", "3"], "steps": ["x"]}, steps=3, terminated=False)


def test_snapshot_round_trip():
    codec = SnapshotCodec(b"key", "game24", "1.0.0")
    blob = codec.encode(PAYLOAD)
    assert blob.startswith(b"LATS\x01")
    assert SnapshotCodec(b"key", "game24", "1.0.0").decode(blob) == PAYLOAD


def _flip(blob: bytes, index: int) -> bytes:
    data = bytearray(blob)
    data[index] ^= 1
    return bytes(data)


@pytest.mark.parametrize("index", [0, 4, 5, 20, 37, -1])
def test_any_altered_byte_is_refused(index):
    codec = SnapshotCodec(b"key", "game24", "1.0.0")
    with pytest.raises(InvalidRequest):
        codec.decode(_flip(codec.encode(PAYLOAD), index))


@pytest.mark.parametrize(
    ("blob_of", "message"),
    [
        (lambda blob: blob[:-1], "signature"),
        (lambda blob: blob[:20], "truncated or garbage"),
        (lambda blob: b"", "truncated or garbage"),
        (lambda blob: b"{\"state\": {}}" * 4, "not a LATS snapshot"),
        (lambda blob: blob[:4] + b"\x02" + blob[5:], "format v2 is not supported"),
        (lambda blob: SnapshotCodec(b"other", "game24", "1.0.0").encode(PAYLOAD), "another key"),
        (lambda blob: SnapshotCodec(b"key", "webshop", "1.0.0").encode(PAYLOAD), "'webshop'"),
        (lambda blob: SnapshotCodec(b"key", "game24", "2.0.0").encode(PAYLOAD), "v2.0.0"),
    ],
)
def test_defective_blobs_say_what_is_wrong(blob_of, message):
    codec = SnapshotCodec(b"key", "game24", "1.0.0")
    with pytest.raises(InvalidRequest, match=message):
        codec.decode(blob_of(codec.encode(PAYLOAD)))


def test_missing_key_means_a_random_key_and_a_warning(caplog):
    first, second = snapshot_key(None), snapshot_key("")
    assert first != second and len(first) == 32
    assert "replicas must share one key" in caplog.text
    assert snapshot_key("shared") == b"shared"


def test_pages_cover_everything_once():
    items = [f"t/{i}" for i in range(23)]
    seen, token = [], ""
    while True:
        ids, token = page(items, "test", token, 5)
        seen += ids
        if not token:
            break
    assert seen == items


@pytest.mark.parametrize(
    "token",
    ["garbage!", "bm90IGpzb24", encode_token("train", 5), encode_token("test", 999),
     encode_token("test", 0), encode_token("test", -3)],
)
def test_bad_page_tokens_are_refused(token):
    with pytest.raises(InvalidRequest, match="page_token"):
        decode_token(token, "test", 23)
