"""RecordingBackend: passes calls through and appends each exchange to JSONL."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from llm_gateway.backends.base import Backend, GenerationRequest, GenerationResult
from llm_gateway.backends.exchange_log import exchange_record


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
