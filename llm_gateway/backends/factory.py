"""make_backend: builds a backend by name from command-line style options."""

from __future__ import annotations

from pathlib import Path

from llm_gateway.backends.base import Backend

BACKEND_NAMES = ("openai", "replay", "scripted", "local")


def make_backend(
    name: str,
    *,
    model: str = "",
    base_url: str | None = None,
    api_key: str | None = None,
    timeout: float = 60.0,
    max_retries: int = 4,
    replay: str | Path | None = None,
    script: str | Path | None = None,
    model_path: str | Path | None = None,
    max_concurrency: int = 4,
    n_ctx: int | None = None,
    threads: int | None = None,
    speculation=None,
    record: str | Path | None = None,
    latency: float = 0.0,
    cache: str | Path | None = None,
) -> Backend:
    """Builds the backend `name`; with `record`, wraps it in a RecordingBackend;
    with `cache`, in a CachingBackend (answers recorded requests from the file);
    with `latency` > 0, each call answers only after that many seconds.
    `speculation` (a backends.speculation.Speculation) is the local backend's.

    Backend modules are imported lazily (the local one pulls in the model
    runtime). Raises ValueError for an unknown name or missing option, and
    whatever the backend raises when it can't start (e.g. a missing file).
    """
    if record and cache:
        raise ValueError("give --record or --cache, not both (a cache records too)")
    backend = _build(
        name, model=model, base_url=base_url, api_key=api_key, timeout=timeout,
        max_retries=max_retries, replay=replay, script=script,
        model_path=model_path, max_concurrency=max_concurrency, n_ctx=n_ctx,
        threads=threads, speculation=speculation,
    )
    if record:
        from llm_gateway.backends.record import RecordingBackend

        backend = RecordingBackend(backend, record)
    if cache:
        from llm_gateway.backends.record import CachingBackend

        backend = CachingBackend(backend, cache)
    if latency:
        from llm_gateway.backends.latency import LatencyBackend

        backend = LatencyBackend(backend, latency)
    return backend


def _build(name: str, *, model, base_url, api_key, timeout, max_retries, replay,
           script, model_path, max_concurrency, n_ctx, threads, speculation) -> Backend:
    if name == "openai":
        from llm_gateway.backends.openai_backend import OpenAIBackend

        return OpenAIBackend(base_url=base_url, api_key=api_key, model=model,
                             timeout=timeout, max_retries=max_retries)
    if name == "replay":
        if not replay:
            raise ValueError("the replay backend needs a recording: pass --replay FILE")
        from llm_gateway.backends.replay import ReplayBackend

        return ReplayBackend(replay)
    if name == "scripted":
        if not script:
            raise ValueError("the scripted backend needs rules: pass --script FILE")
        from llm_gateway.backends.scripted import ScriptedBackend

        return ScriptedBackend.from_file(script)
    if name == "local":
        from llm_gateway.backends.local import LocalBackend

        sizing = {"n_ctx": n_ctx} if n_ctx else {}  # None: the backend's default
        return LocalBackend(model, model_path=model_path, max_concurrency=max_concurrency,
                            threads=threads, speculation=speculation, **sizing)
    raise ValueError(
        f"unknown backend {name!r}; valid backends: {', '.join(BACKEND_NAMES)}"
    )
