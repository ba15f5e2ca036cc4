"""OpenAIBackend: any OpenAI-compatible chat completions endpoint (OpenAI,
vLLM, Ollama, llama.cpp server, ...)."""

from __future__ import annotations

import asyncio
import logging
import os

import grpc
import openai
from dataclasses import dataclass, field

from tenacity import (
    AsyncRetrying,
    before_sleep_log,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
    wait_random,
)

from llm_gateway.backends.base import (
    FINISH_FILTERED,
    FINISH_LENGTH,
    FINISH_STOP,
    Backend,
    BackendError,
    Completion,
    GenerationRequest,
    GenerationResult,
)

log = logging.getLogger(__name__)

UPSTREAM_FINISH_REASONS = {
    "stop": FINISH_STOP,
    "length": FINISH_LENGTH,
    "content_filter": FINISH_FILTERED,
}
CLIENT_ERROR_CODES = {
    400: grpc.StatusCode.INVALID_ARGUMENT,
    401: grpc.StatusCode.UNAUTHENTICATED,
    403: grpc.StatusCode.PERMISSION_DENIED,
    404: grpc.StatusCode.NOT_FOUND,
    422: grpc.StatusCode.INVALID_ARGUMENT,
}


def is_transient(error: BaseException) -> bool:
    """Connection errors, timeouts, 408, 429 and 5xx are worth retrying."""
    if isinstance(error, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(error, openai.APIStatusError):
        return error.status_code in (408, 429) or error.status_code >= 500
    return False


@dataclass
class _Collected:
    """Choices and usage gathered over one or more upstream calls."""

    choices: list[Completion] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str = ""


class OpenAIBackend(Backend):
    """Chat completions through `openai.AsyncOpenAI`.

    Only parameters the request sets are sent (`seed`, `top_p`, `stop` and
    `n` are omitted when unset/default), so strict local servers accept the
    calls. Transient failures are retried `max_retries` times with
    exponential backoff and jitter (the client's own retries are off); then
    the call fails with UNAVAILABLE. Upstream 4xx errors map to
    INVALID_ARGUMENT / UNAUTHENTICATED / PERMISSION_DENIED / NOT_FOUND with
    the upstream message. When the endpoint returns fewer than n choices, or
    rejects n>1, the rest come from parallel single calls (with seed+i when
    a seed was given). Usage is summed over all calls.
    """

    name = "openai"

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        model: str = "",
        timeout: float = 60.0,
        max_retries: int = 4,
        *,
        backoff_initial: float = 0.5,
        backoff_max: float = 10.0,
    ):
        self._model = model  # "" = the endpoint's only model, asked for at load()
        self._base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        self._client = openai.AsyncOpenAI(
            base_url=self._base_url,
            api_key=api_key or os.environ.get("OPENAI_API_KEY") or "none",
            timeout=timeout,
            max_retries=0,
        )
        self._max_retries = max(0, max_retries)
        self._timeout = timeout
        self._backoff_bound = backoff_max + backoff_initial
        self._wait = wait_exponential(multiplier=backoff_initial, max=backoff_max) \
            + wait_random(0, backoff_initial)  # exponential backoff plus jitter
        self._native_n = True

    @property
    def model(self) -> str:
        return self._model

    async def load(self) -> None:
        """Without a model name, takes the endpoint's only served model (vLLM, llama.cpp
        and TGI serve one); none or several is an error naming --model."""
        if self._model:
            return
        try:
            served = [entry.id async for entry in self._client.models.list()]
        except openai.OpenAIError as error:
            raise BackendError(grpc.StatusCode.UNAVAILABLE,
                               f"cannot list the models of {self.endpoint} to pick one "
                               f"({type(error).__name__}: {error}); pass --model or set "
                               "LATS_MODEL") from error
        if len(served) != 1:
            raise BackendError(grpc.StatusCode.FAILED_PRECONDITION,
                               f"{self.endpoint} serves {len(served)} models "
                               f"({', '.join(served[:5]) or 'none'}); choose one with --model "
                               "or LATS_MODEL")
        self._model = served[0]

    @property
    def endpoint(self) -> str:
        return str(self._client.base_url)

    async def generate(self, request: GenerationRequest) -> GenerationResult:
        if not (request.model or self._model):
            await self.load()
        params = self._params(request)
        collected = _Collected()
        native_error: BackendError | None = None
        if request.n == 1 or self._native_n:
            try:
                self._collect(await self._create(params, n=request.n), collected)
            except BackendError as error:
                if request.n == 1 or error.code != grpc.StatusCode.INVALID_ARGUMENT:
                    raise
                native_error = error  # maybe the endpoint only rejects n>1
        missing = request.n - len(collected.choices)
        if missing > 0:
            await self._top_up(request, params, missing, collected)
            if native_error is not None:
                log.warning("%s rejects n>1 (%s); using parallel single calls from now on",
                            self.endpoint, native_error.message)
                self._native_n = False
        return GenerationResult(
            choices=collected.choices[: request.n],
            prompt_tokens=collected.prompt_tokens,
            completion_tokens=collected.completion_tokens,
            model=collected.model or params["model"],
        )

    async def aclose(self) -> None:
        await self._client.close()

    def _params(self, request: GenerationRequest) -> dict:
        params = {
            "model": request.model or self._model,
            "messages": [{"role": r, "content": c} for r, c in request.messages],
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        }
        if request.stop:
            params["stop"] = list(request.stop)
        if request.top_p is not None:
            params["top_p"] = request.top_p
        if request.seed is not None:
            params["seed"] = request.seed
        return params

    async def _top_up(self, request, params, missing: int, collected: _Collected):
        """Fills `missing` choices with parallel single calls."""
        first_index = len(collected.choices)
        tasks = []
        try:
            async with asyncio.TaskGroup() as group:
                for offset in range(missing):
                    single = dict(params)
                    if request.seed is not None:
                        single["seed"] = request.seed + first_index + offset
                    tasks.append(group.create_task(self._create(single, n=1)))
        except ExceptionGroup as failures:
            raise failures.exceptions[0] from None
        for task in tasks:
            self._collect(task.result(), collected)

    def _collect(self, response, collected: _Collected) -> None:
        if not response.choices:
            raise BackendError(
                grpc.StatusCode.INTERNAL,
                f"the endpoint {self.endpoint} returned no choices",
            )
        for choice in sorted(response.choices, key=lambda c: c.index or 0):
            text = choice.message.content if choice.message else None
            collected.choices.append(Completion(
                text=text or "",
                finish_reason=UPSTREAM_FINISH_REASONS.get(choice.finish_reason, FINISH_STOP),
            ))
        if response.usage is not None:
            collected.prompt_tokens += response.usage.prompt_tokens or 0
            collected.completion_tokens += response.usage.completion_tokens or 0
        collected.model = collected.model or response.model or ""

    def worst_case_seconds(self) -> float:
        """The longest one generate call can take: every attempt timing out, with backoff."""
        attempts = self._max_retries + 1
        return attempts * self._timeout + self._max_retries * self._backoff_bound

    async def _create(self, params: dict, n: int):
        """One chat completion call with the retry policy; raises BackendError."""
        if n > 1:
            params = {**params, "n": n}
        attempts = self._max_retries + 1
        try:
            async for attempt in AsyncRetrying(
                stop=stop_after_attempt(attempts),
                wait=self._wait,
                retry=retry_if_exception(is_transient),
                before_sleep=before_sleep_log(log, logging.WARNING),
                reraise=True,
            ):
                with attempt:
                    return await self._client.chat.completions.create(**params)
        except openai.APIStatusError as error:
            raise self._status_error(error, attempts) from error
        except openai.APIConnectionError as error:
            kind = "timed out" if isinstance(error, openai.APITimeoutError) else "was unreachable"
            raise BackendError(
                grpc.StatusCode.UNAVAILABLE,
                f"the endpoint {self.endpoint} {kind} after {attempts} attempts "
                f"({error}); check that it is running and reachable",
            ) from error

    def _status_error(self, error: openai.APIStatusError, attempts: int) -> BackendError:
        upstream = _upstream_message(error)
        if is_transient(error):
            return BackendError(
                grpc.StatusCode.UNAVAILABLE,
                f"the endpoint {self.endpoint} answered HTTP {error.status_code} after "
                f"{attempts} attempts: {upstream}",
            )
        code = CLIENT_ERROR_CODES.get(error.status_code, grpc.StatusCode.FAILED_PRECONDITION)
        return BackendError(
            code, f"the endpoint {self.endpoint} refused the request "
                  f"(HTTP {error.status_code}): {upstream}",
        )


def _upstream_message(error: openai.APIStatusError) -> str:
    body = error.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:500]
        if isinstance(inner, str):
            return inner[:500]
    return str(error.message)[:500]
