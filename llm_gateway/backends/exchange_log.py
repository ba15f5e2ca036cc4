"""The JSONL format shared by RecordingBackend (writer) and ReplayBackend
(reader): one recorded exchange per line.

    {"key": "<sha256 hex>",
     "request": {<GenerationRequest.key_fields()>, "purpose": "..."},
     "choices": [{"text": "...", "finish_reason": "stop|length|filtered"}],
     "usage": {"prompt_tokens": 12, "completion_tokens": 34},
     "model": "..."}

`key` is the sha256 of the canonical JSON of `request.key_fields()`
(sorted keys, no whitespace), so any request that would produce the same
output finds the same recordings.
"""

from __future__ import annotations

import hashlib
import json

from llm_gateway.backends.base import Completion, GenerationRequest, GenerationResult


def request_key(request: GenerationRequest) -> str:
    """sha256 hex of the canonical JSON of the output-determining fields."""
    canonical = json.dumps(request.key_fields(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def exchange_record(request: GenerationRequest, result: GenerationResult) -> dict:
    """One JSONL line's content for a request and the result it got."""
    return {
        "key": request_key(request),
        "request": {**request.key_fields(), "purpose": request.purpose},
        "choices": [
            {"text": c.text, "finish_reason": c.finish_reason} for c in result.choices
        ],
        "usage": {
            "prompt_tokens": result.prompt_tokens,
            "completion_tokens": result.completion_tokens,
            "cached_prompt_tokens": cached_prompt_tokens(result),
        },
        "model": result.model,
    }


def result_from_record(record: dict) -> GenerationResult:
    """The GenerationResult a recorded line stands for."""
    usage = record.get("usage") or {}
    return GenerationResult(
        choices=[
            Completion(text=c["text"], finish_reason=c.get("finish_reason", "stop"))
            for c in record["choices"]
        ],
        prompt_tokens=int(usage.get("prompt_tokens", 0)),
        completion_tokens=int(usage.get("completion_tokens", 0)),
        model=record.get("model", ""),
        extra={"cached_prompt_tokens": int(usage.get("cached_prompt_tokens", 0))},
    )


def cached_prompt_tokens(result: GenerationResult) -> int:
    """The prompt tokens a backend says it served from its prompt cache (0 if unsaid)."""
    cached = result.extra.get("cached_prompt_tokens", 0)
    return min(int(cached), result.prompt_tokens) if isinstance(cached, int) and cached > 0 else 0
