"""`lats serve gateway`: runs the LLM gateway until SIGTERM."""

from __future__ import annotations

import asyncio
import logging

import click

from lats_runtime.serving import ServerOptions, serve_forever
from llm_gateway.backends.base import Backend
from llm_gateway.backends.factory import BACKEND_NAMES, make_backend
from llm_gateway.backends.scripted import SCRIPT_FORMAT
from llm_gateway.backends.speculation import SPECULATION_MODES, Speculation
from llm_gateway.service import LlmGatewayServicer, gateway_service_spec
from llm_gateway.model_store import FAST_MODEL
from llm_gateway.settings import GatewaySettings

log = logging.getLogger(__name__)

DEFAULT_PORT = 50052


def verbatim_help(text: str) -> str:
    """`text` for a click epilog, every paragraph shown as written (not rewrapped)."""
    return "\n\n".join(f"\b\n{paragraph}" for paragraph in text.split("\n\n"))


@click.command("gateway", epilog=verbatim_help("The --backend scripted rules file:\n\n"
                                                + SCRIPT_FORMAT))
@click.option("--backend", "backend_name", type=click.Choice(BACKEND_NAMES),
              default=None, show_default="local, or openai when --base-url is set",
              envvar="LATS_GATEWAY_BACKEND", show_envvar=True,
              help="Where generations come from.")
@click.option("--model", default="", envvar="LATS_MODEL", show_envvar=True,
              help="Model name (openai: '' = the endpoint's only served model; "
                   "local: '' = the default model).")
@click.option("--base-url", default=None, envvar="OPENAI_BASE_URL", show_envvar=True,
              help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1.")
@click.option("--api-key", default=None, envvar="OPENAI_API_KEY", show_envvar=True,
              help="API key for --backend openai ('none' is fine for local servers).")
@click.option("--replay", type=click.Path(dir_okay=False), default=None,
              envvar="LATS_REPLAY", show_envvar=True,
              help="JSONL recording to serve with --backend replay.")
@click.option("--record", type=click.Path(dir_okay=False), default=None,
              envvar="LATS_RECORD", show_envvar=True,
              help="Append every exchange to this JSONL file (for later --replay).")
@click.option("--cache", type=click.Path(dir_okay=False), default=None,
              envvar="LATS_CACHE", show_envvar=True,
              help="Answer requests already recorded in this JSONL file from it, and record "
                   "the rest there (for repeated experiments; usage is reported as recorded).")
@click.option("--script", type=click.Path(dir_okay=False), default=None,
              envvar="LATS_SCRIPT", show_envvar=True,
              help="JSON rules file for --backend scripted (its format is below).")
@click.option("--latency", type=click.FloatRange(min=0), default=0.0, show_default=True,
              envvar="LATS_LATENCY", show_envvar=True,
              help="Seconds every call waits before answering (to make --backend scripted "
                   "or replay take a real model's time in tests and benchmarks).")
@click.option("--model-path", type=click.Path(dir_okay=False), default=None,
              envvar="LATS_MODEL_PATH", show_envvar=True,
              help="Model file for --backend local (default: the model store).")
@click.option("--n-ctx", type=click.IntRange(min=256), default=None,
              envvar="LATS_N_CTX", show_envvar=True,
              help="Context size for --backend local (default: the backend's).")
@click.option("--threads", type=click.IntRange(min=1), default=None,
              envvar="LATS_THREADS", show_envvar=True,
              help="CPU threads of --backend local (default: the CPUs this process may use). "
                   "Two model processes sharing cores run far faster at one thread each, "
                   "or pinned apart (taskset), than contending with one thread per core.")
@click.option("--speculation", type=click.Choice(SPECULATION_MODES), default="off",
              show_default=True, envvar="LATS_SPECULATION", show_envvar=True,
              help="Speculative decoding of --backend local: ngram (prompt lookup: drafts what "
                   "followed the same tokens earlier in the prompt or output), draft (a small "
                   "model of the same tokenizer drafts, --draft-model) or off. Off by default: "
                   "on 2 CPU cores neither paid on a search's requests (bench/README).")
@click.option("--draft-model", default=FAST_MODEL, show_default=True,
              envvar="LATS_DRAFT_MODEL", show_envvar=True,
              help="Model store name of the draft model for --speculation draft (missing: "
                   "no draft, and the log says how to fetch it).")
@click.option("--draft-max", type=click.IntRange(min=1), default=None,
              envvar="LATS_DRAFT_MAX", show_envvar=True,
              help="Tokens drafted per step at most (default: 16 for ngram, 4 for draft).")
@click.option("--preload/--no-preload", default=True, show_default=True,
              envvar="LATS_PRELOAD", show_envvar=True,
              help="Load the model before listening, so a broken one fails at start.")
@click.option("--max-concurrency", type=click.IntRange(min=1), default=4, show_default=True,
              envvar="LATS_MAX_CONCURRENCY", show_envvar=True,
              help="Backend calls allowed in flight at once.")
@click.option("--max-n", type=click.IntRange(min=1), default=16, show_default=True,
              envvar="LATS_MAX_N", show_envvar=True, help="Largest n a request may ask.")
@click.option("--max-tokens-limit", type=click.IntRange(min=1), default=4096,
              show_default=True, envvar="LATS_MAX_TOKENS_LIMIT", show_envvar=True,
              help="Largest max_tokens a request may ask.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=60.0,
              show_default=True, envvar="LATS_UPSTREAM_TIMEOUT", show_envvar=True,
              help="Seconds per upstream HTTP request (--backend openai).")
@click.option("--max-retries", type=click.IntRange(min=0), default=3, show_default=True,
              envvar="LATS_MAX_RETRIES", show_envvar=True,
              help="Retries of transient upstream failures (--backend openai).")
@click.option("--host", default="127.0.0.1", show_default=True, envvar="LATS_HOST",
              show_envvar=True, help="Interface to listen on.")
@click.option("--port", type=click.IntRange(min=0, max=65535), default=DEFAULT_PORT,
              show_default=True, envvar="LATS_PORT", show_envvar=True,
              help="Port to listen on (0 = any free port).")
@click.option("--deadline", type=click.FloatRange(min=0), default=300.0, show_default=True,
              envvar="LATS_DEADLINE", show_envvar=True,
              help="Server-side cap in seconds on any one call (0 = none).")
@click.option("--metrics-port", default=None, type=click.IntRange(0, 65535),
              envvar="LATS_METRICS_PORT", show_envvar=True,
              help="Serve Prometheus metrics at http://HOST:PORT/metrics (0 = any free port; "
                   "unset = no metrics endpoint).")
def serve_gateway(backend_name: str, model: str, base_url: str | None,
                  api_key: str | None, replay: str | None, record: str | None,
                  cache: str | None, script: str | None, latency: float, model_path: str | None,
                  n_ctx: int | None,
                  threads: int | None,
                  speculation: str, draft_model: str, draft_max: int | None,
                  preload: bool,
                  max_concurrency: int, max_n: int, max_tokens_limit: int,
                  timeout: float, max_retries: int, host: str, port: int,
                  deadline: float, metrics_port: int | None) -> None:
    """Serve the LLM gateway (lats.v1.LlmGateway) until SIGTERM."""
    backend_name = backend_name or ("openai" if base_url else "local")
    settings = GatewaySettings(max_n=max_n, max_tokens_limit=max_tokens_limit,
                               max_concurrency=max_concurrency)
    options = ServerOptions(address=f"{host}:{port}", unary_deadline_seconds=deadline,
                            metrics_port=metrics_port, name="gateway")
    backend_options = dict(
        model=model, base_url=base_url, api_key=api_key, timeout=timeout,
        max_retries=max_retries, replay=replay, script=script,
        model_path=model_path, max_concurrency=max_concurrency, n_ctx=n_ctx,
        threads=threads, record=record, latency=latency, cache=cache,
        speculation=Speculation(speculation, draft_model=draft_model, draft_max=draft_max),
    )
    asyncio.run(_serve(backend_name, backend_options, settings, options, preload))


async def _serve(backend_name: str, backend_options: dict, settings: GatewaySettings,
                 options: ServerOptions, preload: bool) -> None:
    backend = _build_backend(backend_name, backend_options)
    try:
        _check_retries_fit(backend, options.unary_deadline_seconds)
        if preload:
            await _load_backend(backend_name, backend)
        servicer = LlmGatewayServicer(backend, settings)
        log.info("gateway backend %s, model %r", backend.name, backend.model)
        try:
            await serve_forever([gateway_service_spec(servicer)], options)
        except OSError as error:
            raise click.ClickException(f"cannot listen on {options.address}: {error}") from None
    finally:
        await backend.aclose()


def _check_retries_fit(backend: Backend, deadline: float) -> None:
    """Upstream retries must end inside the gateway's own deadline, or they are wasted."""
    worst = getattr(backend, "worst_case_seconds", None)
    if deadline and worst is not None and worst() > deadline:
        raise click.ClickException(
            f"upstream attempts can take {worst():.0f}s (--timeout x (--max-retries + 1), "
            f"plus backoff), more than the gateway's --deadline {deadline:g}s; lower "
            "--timeout or --max-retries, or raise --deadline")


def _build_backend(name: str, options: dict) -> Backend:
    """Builds the backend or fails with a one-line ClickException."""
    try:
        return make_backend(name, **options)
    except Exception as error:  # noqa: BLE001 - any start failure is reported
        raise _start_failure(name, error) from None


async def _load_backend(name: str, backend: Backend) -> None:
    try:
        await backend.load()
    except Exception as error:  # noqa: BLE001 - any start failure is reported
        raise _start_failure(name, error) from None


def _start_failure(name: str, error: Exception) -> click.ClickException:
    log.debug("backend %s failed to start", name, exc_info=error)
    detail = getattr(error, "message", None) or str(error)
    detail = " ".join(detail.split()) or type(error).__name__
    return click.ClickException(f"cannot start the {name} backend: {detail}")
