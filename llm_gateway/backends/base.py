"""The backend interface every gateway backend implements.

A backend receives a validated, immutable `GenerationRequest` and returns a
`GenerationResult` with exactly `request.n` choices and honest token counts.
It signals failures by raising `BackendError` with the gRPC status code the
gateway should answer with and a message that says what to fix.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field

import grpc

FINISH_STOP = "stop"
FINISH_LENGTH = "length"
FINISH_FILTERED = "filtered"


@dataclass(frozen=True)
class GenerationRequest:
    messages: tuple[tuple[str, str], ...]  # (role, content) pairs
    n: int = 1
    temperature: float = 1.0
    stop: tuple[str, ...] = ()
    max_tokens: int = 256
    seed: int | None = None
    model: str = ""
    top_p: float | None = None
    purpose: str = ""

    def key_fields(self) -> dict:
        """The fields that determine the model's output (used by replays)."""
        return {
            "messages": [list(m) for m in self.messages],
            "n": self.n,
            "temperature": self.temperature,
            "stop": list(self.stop),
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "model": self.model,
            "top_p": self.top_p,
        }


@dataclass
class Completion:
    text: str
    finish_reason: str = FINISH_STOP


@dataclass
class GenerationResult:
    choices: list[Completion]
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str = ""
    extra: dict = field(default_factory=dict)


class BackendError(Exception):
    """A failure with the gRPC status the gateway must answer with."""

    def __init__(self, code: grpc.StatusCode, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class Backend(abc.ABC):
    """One source of generations (a remote endpoint, a local model, a replay)."""

    name: str = "backend"

    @abc.abstractmethod
    async def generate(self, request: GenerationRequest) -> GenerationResult:
        """Returns request.n choices; raises BackendError on failure."""

    @property
    def model(self) -> str:
        return ""

    @property
    def max_concurrency(self) -> int:
        return 0

    async def load(self) -> None:
        """Gets ready to serve (e.g. loads weights) so a broken backend fails at
        start-up rather than on the first call; raises on failure. Idempotent."""

    async def aclose(self) -> None:
        """Releases connections, processes or files. Idempotent."""
