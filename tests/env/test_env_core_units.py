"""Session store, snapshot codec and page tokens, without a server."""

from __future__ import annotations

import asyncio

import pytest

from env_servers.core import CapacityExhausted, InvalidRequest, NotFound
from env_servers.core.paging import decode_token, encode_token, page
from env_servers.core.sessions import SessionStore
from env_servers.core.snapshots import SnapshotCodec, SnapshotPayload, snapshot_key


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture
def clock():
    return Clock()


def test_sessions_expire_when_idle(clock):
    store = SessionStore(max_sessions=4, ttl_seconds=10, clock=clock)
    idle, busy = store.open({"n": 1}), store.open({"n": 2})
    clock.now += 6
    store.get(busy.id)
    clock.now += 6
    with pytest.raises(NotFound, match="expired.*Reset.*Restore"):
        store.get(idle.id)
    assert store.get(busy.id).state == {"n": 2}
    clock.now += 11
    assert store.sweep() == 1 and len(store) == 0


async def test_a_session_in_a_call_is_not_idle(clock):
    store = SessionStore(max_sessions=4, ttl_seconds=1, clock=clock)
    session = store.open({})
    async with session.lock:
        clock.now += 5
        assert store.sweep() == 0
    assert store.sweep() == 1 and session.closed


def test_capacity_counts_open_sessions_and_frees_expired_ones(clock):
    store = SessionStore(max_sessions=2, ttl_seconds=10, clock=clock)
    first = store.open({})
    store.open({})
    expected = "2 sessions open; Close finished sessions or raise --max-sessions"
    with pytest.raises(CapacityExhausted, match=expected):
        store.open({})
    store.close(first.id)
    store.open({})
    clock.now += 11
    store.open({})  # the full store drops expired sessions before refusing
    assert len(store) == 1


def test_close_twice_is_not_found(clock):
    store = SessionStore(max_sessions=2, ttl_seconds=10, clock=clock)
    session = store.open({})
    store.close(session.id)
    assert session.closed
    with pytest.raises(NotFound):
        store.close(session.id)


def test_session_ids_are_unguessable(clock):
    store = SessionStore(max_sessions=100, ttl_seconds=10, clock=clock)
    ids = {store.open({}).id for _ in range(100)}
    assert len(ids) == 100 and min(len(i) for i in ids) >= 24


async def test_background_sweep_frees_expired_sessions():
    store = SessionStore(max_sessions=2, ttl_seconds=0.05)
    store.open({})
    store.start_sweeper(0.02)
    await asyncio.sleep(0.2)
    assert len(store) == 0
    await store.stop_sweeper()


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
