"""The model calls a run keeps for training data (`lats runs export --format trl`).

`CallLog.record` is the GatewayModel's recorder: it keeps every call whose
purpose is in `purposes` (by default "act", the expansions: each proposes
actions at one node) as a `ModelCall`, with the prompt, every completion as
the model wrote it and as the planner read it (the pack's prefix stripped).
The planner stores the kept calls beside the run (planner.runs), as the
search goes and when it ends.
"""

from __future__ import annotations

from collections.abc import Sequence

from lats_pb import llm_pb2
from lats_pb import planner_pb2 as pb

from planner.model_client import SamplingParams
from planner.prompting import clean_action

KEPT_PURPOSES = ("act",)


class CallLog:
    """The kept calls of one run; `stored` of them are in the run store already."""

    def __init__(self, action_prefix_pattern: str = "",
                 purposes: Sequence[str] = KEPT_PURPOSES):
        self._prefix = action_prefix_pattern
        self._purposes = frozenset(purposes)
        self.calls: list[pb.ModelCall] = []
        self.stored = 0

    def record(self, messages: Sequence[tuple[str, str]], params: SamplingParams,
               texts: list[str], model: str) -> None:
        if params.purpose not in self._purposes:
            return
        self.calls.append(pb.ModelCall(
            index=len(self.calls), purpose=params.purpose, key=params.key,
            node_id=params.key.split("@", 1)[0],
            prompt=[llm_pb2.ChatMessage(role=role, content=content) for role, content in messages],
            completions=texts, actions=[clean_action(text, self._prefix) for text in texts],
            temperature=params.temperature, seed=params.seed or 0, model=model))

    def pending(self) -> list[pb.ModelCall]:
        """The calls not stored yet (mark them with `stored += len(...)` once stored)."""
        return self.calls[self.stored:]
