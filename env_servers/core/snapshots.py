"""Snapshot blobs: an episode's whole state, self-contained and signed.

Layout (format version 1):
    b"LATS" | version byte | HMAC-SHA256 (32 bytes) | zlib(JSON payload)
The MAC covers the magic, the version byte and the compressed payload. The
payload names the environment (name + version) and carries the domain state,
the step count and whether the episode terminated.

Blobs are opaque to clients; any replica holding the same key continues a
blob. Every defect raises `InvalidRequest` naming it: too short or not a
LATS blob, an unknown format version, a failed signature (altered, truncated,
extended, or signed with another key), an unreadable payload, or a blob of
another environment or version.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
import zlib
from dataclasses import dataclass, field

from env_servers.core.domain import State
from env_servers.core.errors import InvalidRequest

log = logging.getLogger(__name__)

MAGIC = b"LATS"
FORMAT_VERSION = 1
_MAC_BYTES = hashlib.sha256().digest_size
_HEADER_BYTES = len(MAGIC) + 1 + _MAC_BYTES
MAX_PAYLOAD_BYTES = 64 * 1024 * 1024
MAX_STEPS = 2**31 - 1       # StepResult.steps is a uint32; no episode comes near


def snapshot_key(configured: str | None) -> bytes:
    """The signing key: the configured secret, else a random per-process key."""
    if configured:
        return configured.encode("utf-8")
    log.warning(
        "no snapshot key configured (--snapshot-key / LATS_SNAPSHOT_KEY): using a "
        "random per-process key, so only this process accepts its snapshots; "
        "replicas must share one key to continue each other's snapshots"
    )
    return secrets.token_bytes(32)


@dataclass(frozen=True)
class SnapshotPayload:
    """What a blob holds: the state, the step count, the terminated flag."""

    state: State
    steps: int
    terminated: bool
    # Decoded from a client's blob (not made by this process); not part of equality.
    foreign: bool = field(default=False, compare=False)


class SnapshotCodec:
    """Encodes and verifies the blobs of one environment (name + version)."""

    def __init__(self, key: bytes, env_name: str, env_version: str):
        if not key:
            raise ValueError("the snapshot key must not be empty")
        self._key = key
        self._env_name = env_name
        self._env_version = env_version

    def encode(self, payload: SnapshotPayload) -> bytes:
        document = {
            "env": self._env_name,
            "env_version": self._env_version,
            "state": payload.state,
            "steps": payload.steps,
            "terminated": payload.terminated,
        }
        text = json.dumps(document, separators=(",", ":"), sort_keys=True)
        body = zlib.compress(text.encode("utf-8"))
        head = MAGIC + bytes([FORMAT_VERSION])
        return head + self._mac(head, body) + body

    def decode(self, blob: bytes) -> SnapshotPayload:
        if len(blob) < _HEADER_BYTES or not blob.startswith(MAGIC):
            raise InvalidRequest(
                f"not a LATS snapshot blob ({len(blob)} bytes): it is truncated or "
                "garbage; pass the snapshot exactly as Reset or Step returned it"
            )
        head, mac, body = blob[:5], blob[5:_HEADER_BYTES], blob[_HEADER_BYTES:]
        if head[4] != FORMAT_VERSION:
            raise InvalidRequest(
                f"snapshot format v{head[4]} is not supported (this server reads "
                f"v{FORMAT_VERSION}); continue it on the server version that made it"
            )
        if not hmac.compare_digest(mac, self._mac(head, body)):
            raise InvalidRequest(
                "snapshot blob failed its signature check: it was altered or "
                "truncated, or was signed with another key (replicas must share "
                "--snapshot-key / LATS_SNAPSHOT_KEY)"
            )
        document = self._parse(body)
        if (document.get("env"), document.get("env_version")) != (
            self._env_name,
            self._env_version,
        ):
            raise InvalidRequest(
                f"snapshot is from environment {document.get('env')!r} "
                f"v{document.get('env_version')}, but this server runs "
                f"{self._env_name!r} v{self._env_version}; continue it on a "
                "server of that environment"
            )
        return SnapshotPayload(
            state=document["state"],
            steps=document["steps"],
            terminated=document["terminated"],
            foreign=True,
        )

    def _mac(self, head: bytes, body: bytes) -> bytes:
        return hmac.new(self._key, head + body, hashlib.sha256).digest()

    @staticmethod
    def _parse(body: bytes) -> dict:
        try:
            inflater = zlib.decompressobj()
            text = inflater.decompress(body, MAX_PAYLOAD_BYTES)
            if inflater.unconsumed_tail or not inflater.eof:
                raise ValueError("payload too large or incomplete")
            document = json.loads(text)
            if not (
                isinstance(document, dict)
                and isinstance(document.get("state"), dict)
                and type(document.get("steps")) is int
                and 0 <= document["steps"] <= MAX_STEPS
                and isinstance(document.get("terminated"), bool)
            ):
                raise ValueError("payload is not a snapshot document (state object, "
                                 f"steps 0..{MAX_STEPS}, terminated true/false)")
            return document
        except (zlib.error, ValueError) as error:
            raise InvalidRequest(f"snapshot payload is unreadable: {error}") from error
