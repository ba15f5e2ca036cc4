"""RecordingBackend: passes calls through and appends each exchange to JSONL;
CachingBackend: the same, answering requests already in the file from it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from llm_gateway.backends.base import Backend, GenerationRequest, GenerationResult
from llm_gateway.backends.exchange_log import exchange_record, request_key, result_from_record


class RecordingBackend(Backend):
    """Wraps `inner`; every successful call appends one line (the
    exchange_log format ReplayBackend reads) to `path`, flushed at once.

    Parent directories are created; an existing file is appended to. Failed
    calls are not recorded. Reports the inner backend's name and model.
    """

    def __init__(self, inner: Backend, path: str | Path):
        self._inner = inner
        self._path = Path(path)
        self._path.parent.mkdir(parents=True, exist_ok=True)
        self._file = self._path.open("a", encoding="utf-8")
        self._lock = asyncio.Lock()
        self.name = inner.name

    @property
    def model(self) -> str:
        return self._inner.model

    @property
    def max_concurrency(self) -> int:
        return self._inner.max_concurrency

    @property
    def inner(self) -> Backend:
        return self._inner

    async def generate(self, request: GenerationRequest) -> GenerationResult:
        result = await self._inner.generate(request)
        line = json.dumps(exchange_record(request, result), ensure_ascii=False)
        async with self._lock:
            self._file.write(line + "\n")
            self._file.flush()
        return result

    async def load(self) -> None:
        await self._inner.load()

    async def aclose(self) -> None:
        try:
            await self._inner.aclose()
        finally:
            if not self._file.closed:
                self._file.close()


class CachingBackend(RecordingBackend):
    """A RecordingBackend that first looks in its own file: a request recorded
    there (same exchange_log key: messages, sampling settings and seed) is
    answered from the recording, with the recorded usage, and the inner backend
    is not called; any other request is passed through and recorded.

    For repeated experiments: variants of one search that share requests (the
    same greedy attempt, the same root samples) pay for them once. A served
    recording still counts as a call with its recorded tokens, so budgets and
    reported costs are those of the uncached run; only wall time is not.
    """

    def __init__(self, inner: Backend, path: str | Path):
        super().__init__(inner, path)
        self._cached: dict[str, GenerationResult] = {}
        with self._path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                    self._cached.setdefault(record["key"], result_from_record(record))
                except (ValueError, KeyError, TypeError) as error:
                    raise ValueError(f"{self._path}:{number}: not an exchange record "
                                     f"({error})") from None
        self.hits = 0

    async def generate(self, request: GenerationRequest) -> GenerationResult:
        cached = self._cached.get(request_key(request))
        if cached is not None:
            self.hits += 1
            return cached
        result = await super().generate(request)
        self._cached.setdefault(request_key(request), result)
        return result
