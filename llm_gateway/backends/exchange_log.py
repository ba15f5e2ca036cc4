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
            **_draft_fields(result),
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
        extra={key: int(usage.get(key, 0))
               for key in ("cached_prompt_tokens", "draft_tokens", "draft_accepted_tokens")},
    )


def cached_prompt_tokens(result: GenerationResult) -> int:
    """The prompt tokens a backend says it served from its prompt cache (0 if unsaid)."""
    cached = result.extra.get("cached_prompt_tokens", 0)
    return min(int(cached), result.prompt_tokens) if isinstance(cached, int) and cached > 0 else 0


def draft_tokens(result: GenerationResult) -> tuple[int, int]:
    """(drafted, accepted) speculative-decoding tokens a backend reports ((0, 0) if unsaid)."""
    counts = []
    for key in ("draft_tokens", "draft_accepted_tokens"):
        value = result.extra.get(key, 0)
        counts.append(value if isinstance(value, int) and value > 0 else 0)
    drafted, accepted = counts
    return drafted, min(accepted, drafted)


def _draft_fields(result: GenerationResult) -> dict:
    """The draft counts for a recorded line, where the backend speculated (else none)."""
    drafted, accepted = draft_tokens(result)
    return {"draft_tokens": drafted, "draft_accepted_tokens": accepted} if drafted else {}
