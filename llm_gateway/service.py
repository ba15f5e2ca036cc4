"""The LlmGateway gRPC service: validation, usage accounting and a concurrency
cap in front of one Backend.

A gateway holds no per-run state that a search depends on: run budgets are
enforced by the caller (the planner) from the usage every response reports,
so any replica can serve any call. The usage ledger only records what this
replica served (GetUsage), for operators.
"""

from __future__ import annotations

import asyncio
import logging
import time

import grpc
from lats_pb import llm_pb2, llm_pb2_grpc

from lats_runtime.calls import RETRYABLE_KEY
from lats_runtime.run_context import current_run_id, enter_run, run_id_problem
from lats_runtime.serving import ServiceSpec
from llm_gateway.backends.exchange_log import cached_prompt_tokens, draft_tokens
from llm_gateway.metrics import MODEL_IN_FLIGHT, record_call
from llm_gateway.backends.base import (
    FINISH_FILTERED,
    FINISH_LENGTH,
    FINISH_STOP,
    Backend,
    BackendError,
    GenerationRequest,
    GenerationResult,
)
from llm_gateway.settings import GatewaySettings
from llm_gateway.usage import UsageCounts, UsageLedger
from llm_gateway.validation import InvalidRequest, to_generation_request

log = logging.getLogger(__name__)

SERVICE_NAME = llm_pb2.DESCRIPTOR.services_by_name["LlmGateway"].full_name

FINISH_REASONS = {
    FINISH_STOP: llm_pb2.FINISH_REASON_STOP,
    FINISH_LENGTH: llm_pb2.FINISH_REASON_LENGTH,
    FINISH_FILTERED: llm_pb2.FINISH_REASON_FILTERED,
}


class LlmGatewayServicer(llm_pb2_grpc.LlmGatewayServicer):
    """Serves Generate/GetUsage/DescribeBackend over `backend`.

    At most `settings.max_concurrency` backend calls run at once; a call is
    abandoned (and the backend work cancelled) when the client's deadline
    passes or the client cancels. Failures become typed gRPC errors.
    """

    def __init__(self, backend: Backend, settings: GatewaySettings | None = None):
        self._backend = backend
        self._settings = settings or GatewaySettings()
        self._ledger = UsageLedger(self._settings.usage_run_capacity)
        self._slots = asyncio.Semaphore(self._settings.max_concurrency)

    @property
    def ledger(self) -> UsageLedger:
        return self._ledger

    async def Generate(self, request, context):
        try:
            generation = to_generation_request(request, self._settings)
        except InvalidRequest as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        run_id = request.run_id
        if run_id and not current_run_id():    # a client that sent no run-id header
            enter_run(run_id)
        started = time.perf_counter()
        with MODEL_IN_FLIGHT.labels(self._backend.name).track_inprogress():
            result, code, message = await self._call_backend(generation, context)
        seconds = time.perf_counter() - started
        if result is None:
            record_call(self._backend.name, self._backend.model or "default", code.name, seconds)
            # An upstream that failed after the backend's own retries: a caller
            # retrying would only nest retries (lats_runtime.calls).
            trailing = ((RETRYABLE_KEY, "false"),) if code == grpc.StatusCode.UNAVAILABLE else ()
            await context.abort(code, message, trailing_metadata=trailing)

        drafted, accepted = draft_tokens(result)
        usage = UsageCounts(1, result.prompt_tokens, result.completion_tokens,
                            cached_prompt_tokens(result), drafted, accepted)
        record_call(self._backend.name, result.model or self._backend.model or "default", "ok",
                    seconds, result.prompt_tokens, result.completion_tokens)
        run_usage = self._ledger.record(run_id, usage)
        return llm_pb2.GenerateResponse(
            choices=[
                llm_pb2.Choice(
                    text=choice.text,
                    finish_reason=FINISH_REASONS.get(
                        choice.finish_reason, llm_pb2.FINISH_REASON_UNSPECIFIED
                    ),
                )
                for choice in result.choices
            ],
            usage=_usage_message(usage),
            model=result.model or generation.model or self._backend.model,
            backend=self._backend.name,
            run_usage=_usage_message(run_usage),
        )

    async def GetUsage(self, request, context):
        problem = run_id_problem(request.run_id) if request.run_id else None
        if problem:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, problem)
        counts = self._ledger.run(request.run_id) if request.run_id else self._ledger.total()
        return llm_pb2.GetUsageResponse(usage=_usage_message(counts))

    async def DescribeBackend(self, request, context):
        limit = self._settings.max_concurrency
        if self._backend.max_concurrency:
            limit = min(limit, self._backend.max_concurrency)
        return llm_pb2.DescribeBackendResponse(
            backend=self._backend.name,
            model=self._backend.model,
            max_concurrency=limit,
            max_samples=self._settings.max_n,
        )

    async def _call_backend(
        self, generation: GenerationRequest, context
    ) -> tuple[GenerationResult | None, grpc.StatusCode | None, str]:
        """Runs the backend under the concurrency cap and the client's deadline.

        Returns (result, None, "") or (None, status code, message).
        """
        backend = self._backend.name
        remaining = context.time_remaining()
        deadline = asyncio.timeout(remaining if remaining is not None else None)
        try:
            async with deadline:
                async with self._slots:
                    result = await self._backend.generate(generation)
        except BackendError as error:
            code = error.code if error.code != grpc.StatusCode.OK else grpc.StatusCode.INTERNAL
            return None, code, error.message
        except TimeoutError as error:
            if deadline.expired():
                return None, grpc.StatusCode.DEADLINE_EXCEEDED, (
                    "the client's deadline passed before the backend answered"
                )
            log.exception("backend %s timed out unexpectedly", backend)
            return None, grpc.StatusCode.INTERNAL, _internal_message(backend, error)
        except Exception as error:  # noqa: BLE001 - the server must never crash
            log.exception("backend %s failed", backend)
            return None, grpc.StatusCode.INTERNAL, _internal_message(backend, error)
        if len(result.choices) != generation.n:
            log.error("backend %s returned %d choices for n=%d",
                      backend, len(result.choices), generation.n)
            return None, grpc.StatusCode.INTERNAL, (
                f"backend {backend} returned {len(result.choices)} choices for "
                f"n={generation.n}; this is a gateway bug, see its log"
            )
        return result, None, ""


def gateway_service_spec(servicer: LlmGatewayServicer) -> ServiceSpec:
    """The ServiceSpec that hosts `servicer` with lats_runtime.serving."""
    return ServiceSpec(
        full_name=SERVICE_NAME,
        register=lambda server: llm_pb2_grpc.add_LlmGatewayServicer_to_server(
            servicer, server
        ),
    )


def _usage_message(counts: UsageCounts) -> llm_pb2.Usage:
    return llm_pb2.Usage(
        calls=counts.calls,
        prompt_tokens=counts.prompt_tokens,
        completion_tokens=counts.completion_tokens,
        cached_prompt_tokens=counts.cached_prompt_tokens,
        draft_tokens=counts.draft_tokens,
        draft_accepted_tokens=counts.draft_accepted_tokens,
    )


def _internal_message(backend: str, error: BaseException) -> str:
    detail = str(error)[:200] or type(error).__name__
    return (
        f"backend {backend} failed unexpectedly ({type(error).__name__}: {detail}); "
        "the gateway log has the traceback"
    )
