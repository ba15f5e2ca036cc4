"""`state().snapshot`: a session's latest step result and its episode's history, as text.

    BASE64(StepResult) "." BASE64(JSON history)

The StepResult (environment.proto) carries the observation, its info and the
snapshot the servicer verifies on `reset(snapshot=...)`. The history is what
the snapshot alone does not name for a signed blob: the episode's reset
request, every action since it (invalid ones included, so their number is the
step count) and the reward so far. A session continued from it shows the same
actions, step count and total reward as the one that saved it. The history
is not signed: the servicer verifies the state, and `restored_episode` refuses
a history whose actions do not number the state's steps.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass

from google.protobuf import json_format
from google.protobuf.message import DecodeError

from lats_pb import environment_pb2

NOT_SAVED = "snapshot is not one state() gave: pass state().snapshot as it is"


@dataclass(frozen=True)
class SavedState:
    last: environment_pb2.StepResult      # the latest result, with its snapshot
    reset: environment_pb2.ResetRequest   # how the episode began
    actions: tuple[str, ...]              # every action since, in order
    total_reward: float


def encode(saved: SavedState) -> str:
    history = {"reset": json_format.MessageToDict(saved.reset),
               "actions": list(saved.actions), "total_reward": saved.total_reward}
    return ".".join(base64.b64encode(part).decode("ascii") for part in (
        saved.last.SerializeToString(), json.dumps(history).encode("utf-8")))


def decode(text: object) -> SavedState:
    """The saved state `text` holds; `ValueError` (NOT_SAVED) for anything else."""
    parts = str(text).split(".")
    if len(parts) != 2:
        raise ValueError(NOT_SAVED)
    try:
        last = environment_pb2.StepResult.FromString(base64.b64decode(parts[0], validate=True))
        history = json.loads(base64.b64decode(parts[1], validate=True))
        reset = json_format.ParseDict(history["reset"], environment_pb2.ResetRequest())
        actions = tuple(history["actions"])
        total_reward = float(history["total_reward"])
    except (binascii.Error, ValueError, DecodeError, KeyError, TypeError,
            json_format.ParseError):
        raise ValueError(NOT_SAVED) from None
    if not last.snapshot.WhichOneof("kind"):
        raise ValueError("snapshot holds no state: pass state().snapshot as it is")
    if not all(isinstance(action, str) for action in actions):
        raise ValueError(NOT_SAVED)
    return SavedState(last=last, reset=reset, actions=actions, total_reward=total_reward)
