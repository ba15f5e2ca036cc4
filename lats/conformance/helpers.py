"""Domain-agnostic building blocks of the conformance tests."""

from __future__ import annotations

import itertools
import random
import string
from collections.abc import Callable, Iterable, Sequence
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
MAX_PLAYABLE_STEPS = 500


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
    """Ways a snapshot blob can arrive broken, named by the damage."""

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


def script(actions: Sequence[str], length: int, rotate: int = 0) -> list[str]:
    """`length` actions cycling through `actions`, starting `rotate` places in."""
    cycle = itertools.cycle([*actions[rotate:], *actions[:rotate]])
    return list(itertools.islice(cycle, length))


class Outcome(NamedTuple):
    """Everything a step result says that must be reproducible (info and snapshot aside)."""

    observation: str
    reward: float
    terminated: bool
    truncated: bool
    invalid_action: bool
    steps: int
    error: str = ""
    answer_key: str = ""
    state_key: str = ""

    @classmethod
    def of(cls, result: environment_pb2.StepResult) -> Outcome:
        return cls(result.observation, result.reward, result.terminated,
                   result.truncated, result.invalid_action, result.steps,
                   answer_key=result.answer_key, state_key=result.state_key)

    @classmethod
    def failed(cls, error: grpc.RpcError) -> Outcome:
        return cls("", 0.0, False, False, False, 0, error.code().name)

    @property
    def ended(self) -> bool:
        return self.terminated or self.truncated or bool(self.error)


class Episodes:
    """Reset, Step and Score through one stub, with the kit's deadline."""

    def __init__(self, stub, timeout: float):
        self.stub = stub
        self.timeout = timeout

    def reset(self, task_id: str = "", **fields: Any) -> environment_pb2.ResetResponse:
        if task_id:
            fields["task_id"] = task_id
        return self.stub.Reset(environment_pb2.ResetRequest(**fields), timeout=self.timeout)

    def step(self, snapshot: environment_pb2.Snapshot,
             actions: Iterable[str]) -> list[environment_pb2.StepResult]:
        request = environment_pb2.StepRequest(snapshot=snapshot, actions=list(actions))
        return list(self.stub.Step(request, timeout=self.timeout).results)

    def step_one(self, snapshot: environment_pb2.Snapshot,
                 action: str) -> environment_pb2.StepResult:
        result, = self.step(snapshot, [action])
        return result

    def score(self, snapshot: environment_pb2.Snapshot) -> environment_pb2.ScoreResponse:
        return self.stub.Score(environment_pb2.ScoreRequest(snapshot=snapshot),
                               timeout=self.timeout)

    def play(self, snapshot: environment_pb2.Snapshot, actions: Iterable[str]
             ) -> tuple[list[Outcome], list[environment_pb2.Snapshot]]:
        """Steps `actions` in order, each from the snapshot the previous step gave,
        stopping after the step that ends the episode (or fails). Returns the
        outcomes and the snapshot after each one (none after a failed step)."""
        outcomes, snapshots = [], []
        for action in actions:
            try:
                result = self.step_one(snapshot, action)
            except grpc.RpcError as error:
                outcomes.append(Outcome.failed(error))
                break
            outcome = Outcome.of(result)
            outcomes.append(outcome)
            snapshot = result.snapshot
            snapshots.append(snapshot)
            if outcome.ended:
                break
        return outcomes, snapshots

    def outcomes(self, snapshot: environment_pb2.Snapshot, actions: Iterable[str]) -> list[Outcome]:
        return self.play(snapshot, actions)[0]

    def ended_snapshot(self, task_id: str, max_steps: int) -> environment_pb2.Snapshot:
        """The snapshot of an episode played to its end with garbage (every step counts)."""
        if max_steps > MAX_PLAYABLE_STEPS:
            pytest.skip(f"max_steps={max_steps} is too many steps to play out")
        outcomes, snapshots = self.play(self.reset(task_id).snapshot,
                                        garbage_actions(max_steps + 1))
        assert outcomes[-1].ended and not outcomes[-1].error, (
            f"the episode did not end cleanly after {len(outcomes)} steps "
            f"(max_steps={max_steps}): {outcomes[-1]}")
        return snapshots[-1]
