"""Turns a wire GenerateRequest into a backend GenerationRequest, or says
precisely what is wrong with it."""

from __future__ import annotations

import math

from lats_pb import llm_pb2
from lats_runtime.quoting import quoted
from lats_runtime.run_context import run_id_problem

from llm_gateway.backends.base import GenerationRequest
from llm_gateway.settings import GatewaySettings

VALID_ROLES = ("system", "user", "assistant")


class InvalidRequest(ValueError):
    """The request can't be served as sent; the message says how to fix it."""


def to_generation_request(
    request: llm_pb2.GenerateRequest, settings: GatewaySettings
) -> GenerationRequest:
    """Validates `request` against `settings`; raises InvalidRequest.

    Wire defaults are resolved here: n=0 means 1, max_tokens=0 means
    settings.default_max_tokens, top_p=0 means the backend's default (None).
    """
    messages = _messages(request)
    if request.run_id:
        problem = run_id_problem(request.run_id)
        if problem:
            raise InvalidRequest(problem)
    n = request.n or 1
    if n > settings.max_n:
        raise InvalidRequest(
            f"n={n} exceeds this gateway's limit of {settings.max_n} samples per "
            "request; ask for fewer or start the gateway with a higher --max-n"
        )
    max_tokens = request.max_tokens or settings.default_max_tokens
    if max_tokens > settings.max_tokens_limit:
        raise InvalidRequest(
            f"max_tokens={max_tokens} exceeds this gateway's limit of "
            f"{settings.max_tokens_limit}; ask for fewer tokens"
        )
    _check_range("temperature", request.temperature, 0.0, 2.0)
    _check_range("top_p", request.top_p, 0.0, 1.0)
    stop = _stop_sequences(request, settings)
    return GenerationRequest(
        messages=messages,
        n=n,
        temperature=request.temperature,
        stop=stop,
        max_tokens=max_tokens,
        seed=request.seed if request.HasField("seed") else None,
        model=request.model,
        top_p=request.top_p or None,
        purpose=request.purpose,
    )


def _messages(request: llm_pb2.GenerateRequest) -> tuple[tuple[str, str], ...]:
    if not request.messages:
        raise InvalidRequest(
            "messages is empty: send at least one {role, content} message"
        )
    for index, message in enumerate(request.messages):
        if message.role not in VALID_ROLES:
            raise InvalidRequest(
                f"messages[{index}].role is {quoted(message.role)}; use one of "
                + ", ".join(VALID_ROLES)
            )
    if not any(message.content.strip() for message in request.messages):
        raise InvalidRequest(
            "every message's content is empty: put the prompt in at least one message"
        )
    return tuple((m.role, m.content) for m in request.messages)


def _check_range(name: str, value: float, low: float, high: float) -> None:
    if math.isnan(value) or not low <= value <= high:
        raise InvalidRequest(f"{name}={value:g} is outside [{low:g}, {high:g}]")


def _stop_sequences(
    request: llm_pb2.GenerateRequest, settings: GatewaySettings
) -> tuple[str, ...]:
    stop = tuple(request.stop)
    if len(stop) > settings.max_stop_sequences:
        raise InvalidRequest(
            f"{len(stop)} stop sequences given; at most "
            f"{settings.max_stop_sequences} are allowed"
        )
    for index, sequence in enumerate(stop):
        if not sequence:
            raise InvalidRequest(f"stop[{index}] is empty; remove it")
        if len(sequence) > settings.max_stop_chars:
            raise InvalidRequest(
                f"stop[{index}] is {len(sequence)} characters long; at most "
                f"{settings.max_stop_chars} are allowed"
            )
    return stop
