"""ReplayBackend: answers from recorded exchanges, never from a model."""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from pathlib import Path

import grpc

from llm_gateway.backends.base import (
    Backend,
    BackendError,
    GenerationRequest,
    GenerationResult,
)
from llm_gateway.backends.exchange_log import request_key, result_from_record


class ReplayBackend(Backend):
    """Serves the exchanges in a JSONL file written by RecordingBackend.

    Requests are matched by `exchange_log.request_key`. When a key was
    recorded several times the recordings are served in file order, cycling.
    A request with no recording fails with FAILED_PRECONDITION.
    Raises FileNotFoundError / ValueError at construction for a missing or
    malformed file.
    """

    name = "replay"

    def __init__(self, path: str | Path):
        self._path = Path(path)
        if not self._path.is_file():
            raise FileNotFoundError(
                f"replay file {self._path} does not exist; record one by running "
                "the gateway with --record FILE against a real backend"
            )
        self._recordings: dict[str, list[dict]] = defaultdict(list)
        self._models: list[str] = []
        for line_number, line in enumerate(self._path.read_text("utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                key = record["key"]
                result_from_record(record)
            except (ValueError, KeyError, TypeError) as error:
                raise ValueError(
                    f"{self._path}:{line_number} is not a recorded exchange ({error})"
                ) from error
            self._recordings[key].append(record)
            if record.get("model"):
                self._models.append(record["model"])
        self._cursors = {
            key: itertools.cycle(records) for key, records in self._recordings.items()
        }

    @property
    def model(self) -> str:
        return self._models[0] if self._models else ""

    def __len__(self) -> int:
        return sum(len(records) for records in self._recordings.values())

    async def generate(self, request: GenerationRequest) -> GenerationResult:
        key = request_key(request)
        cursor = self._cursors.get(key)
        if cursor is None:
            last = request.messages[-1][1] if request.messages else ""
            raise BackendError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"no recording in {self._path.name} for key {key} "
                f"(purpose {request.purpose!r}, last message {last[:80]!r}); "
                "record it by running the gateway with --record FILE against a "
                "real backend, then replay that file",
            )
        return result_from_record(next(cursor))
