"""Domain-agnostic building blocks of the conformance tests."""

from __future__ import annotations

import random
import string
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

import grpc
import pytest
from lats_pb import environment_pb2

# The placeholders environment.proto documents for the act/value/reflect/setup templates.
TEMPLATE_PLACEHOLDERS = (
    "instructions", "examples", "task", "trajectory", "reflections", "step", "outcome",
)
STEP_PLACEHOLDERS = ("step", "action", "observation", "reflection")
REFLECTION_PLACEHOLDERS = ("index", "reflection")
PROTOCOL_MAX_MESSAGE_BYTES = 4 * 1024 * 1024


def expect_status(
    code: grpc.StatusCode, call: Callable, *args: Any, what: str = "", **kwargs: Any
) -> grpc.RpcError:
    """Calls `call` and asserts it fails with `code` and an explanatory message.

    `what` names the input being refused (e.g. "a blob with its last byte cut"),
    so a failure says which one the server accepted."""
    about = f"{what}: " if what else ""
    with pytest.raises(grpc.RpcError) as caught:
        result = call(*args, **kwargs)
        pytest.fail(f"{about}expected {code.name}, but the call succeeded with {result!r:.300}")
    error = caught.value
    assert error.code() == code, (
        f"{about}expected {code.name}, got {error.code().name}: {error.details()}"
    )
    assert error.details(), f"{about}{code.name} must carry a message saying what to fix"
    return error


def garbage_actions(count: int = 6, seed: int = 24) -> list[str]:
    """Deterministic nonsense that no sane grammar accepts as an action."""
    rng = random.Random(seed)
    actions = ["%%% conformance garbage action %%%", "?? <not> {an} [action] ??"]
    alphabet = string.ascii_letters + string.digits + "!#$%&()*+,-./:;<=>?@[]^_{|}~ "
    while len(actions) < count:
        body = "".join(rng.choice(alphabet) for _ in range(rng.randint(5, 40)))
        actions.append(f"~{body}~")
    return actions


def damaged_blobs(blob: bytes) -> dict[str, bytes]:
    """Ways a snapshot blob can arrive broken, by name."""

    def flipped(position: int) -> bytes:
        data = bytearray(blob)
        data[position] ^= 0x5A
        return bytes(data)

    rng = random.Random(7)
    return {
        "a blob with its first byte flipped": flipped(0),
        f"a blob with byte {len(blob) // 2} (the middle) flipped": flipped(len(blob) // 2),
        "a blob with its last byte flipped": flipped(len(blob) - 1),
        f"a blob truncated to its first {len(blob) // 2} of {len(blob)} bytes":
            blob[: len(blob) // 2],
        "a blob with its last byte cut": blob[:-1],
        "a blob with a zero byte appended": blob + b"\x00",
        "an empty blob": b"",
        "a blob of plain text": b"this is not a snapshot blob",
        "a blob of random bytes": bytes(rng.getrandbits(8) for _ in range(max(64, len(blob)))),
    }


class Outcome(NamedTuple):
    """Everything a Step answers that must be reproducible (info aside)."""

    observation: str
    reward: float
    terminated: bool
    truncated: bool
    invalid_action: bool
    steps: int
    error: str = ""
    answer_key: str = ""

    @classmethod
    def of(cls, response: environment_pb2.StepResponse) -> Outcome:
        return cls(response.observation, response.reward, response.terminated,
                   response.truncated, response.invalid_action, response.steps,
                   answer_key=response.answer_key)

    @classmethod
    def failed(cls, error: grpc.RpcError) -> Outcome:
        return cls("", 0.0, False, False, False, 0, error.code().name)

    @property
    def ended(self) -> bool:
        return self.terminated or self.truncated or bool(self.error)


class Sessions:
    """Opens sessions through one stub and closes whatever is left at teardown."""

    def __init__(self, stub, timeout: float):
        self.stub = stub
        self.timeout = timeout
        self.open: set[str] = set()

    def reset(self, task_id: str, **fields: Any) -> environment_pb2.ResetResponse:
        response = self.stub.Reset(
            environment_pb2.ResetRequest(task_id=task_id, **fields), timeout=self.timeout
        )
        self.open.add(response.session_id)
        return response

    def restore(self, blob: bytes) -> environment_pb2.RestoreResponse:
        response = self.stub.Restore(
            environment_pb2.RestoreRequest(blob=blob), timeout=self.timeout
        )
        self.open.add(response.session_id)
        return response

    def step(self, session_id: str, action: str) -> environment_pb2.StepResponse:
        return self.stub.Step(
            environment_pb2.StepRequest(session_id=session_id, action=action),
            timeout=self.timeout,
        )

    def snapshot(self, session_id: str) -> bytes:
        return self.stub.Snapshot(
            environment_pb2.SnapshotRequest(session_id=session_id), timeout=self.timeout
        ).blob

    def close(self, session_id: str) -> None:
        self.open.discard(session_id)
        self.stub.Close(environment_pb2.CloseRequest(session_id=session_id), timeout=self.timeout)

    def play(self, session_id: str, actions: Iterable[str]) -> list[Outcome]:
        """Steps `actions` in order, stopping after the step that ends the episode."""
        outcomes = []
        for action in actions:
            try:
                outcome = Outcome.of(self.step(session_id, action))
            except grpc.RpcError as error:
                outcome = Outcome.failed(error)
            outcomes.append(outcome)
            if outcome.ended:
                break
        return outcomes

    def close_all(self) -> None:
        for session_id in list(self.open):
            try:
                self.close(session_id)
            except grpc.RpcError:
                pass  # already expired or closed by the test
