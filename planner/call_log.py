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
    """The kept calls of one run that are not in the run store yet (stored ones are
    let go, so a long search holds only what the last write left)."""

    def __init__(self, action_prefix_pattern: str = "",
                 purposes: Sequence[str] = KEPT_PURPOSES):
        self._prefix = action_prefix_pattern
        self._purposes = frozenset(purposes)
        self._unstored: list[pb.ModelCall] = []
        self.count = 0                      # calls kept so far, stored or not

    def record(self, messages: Sequence[tuple[str, str]], params: SamplingParams,
               texts: list[str], model: str) -> None:
        if params.purpose not in self._purposes:
            return
        self.count += 1
        self._unstored.append(pb.ModelCall(
            index=self.count - 1, purpose=params.purpose, key=params.key,
            node_id=params.key.split("@", 1)[0],
            prompt=[llm_pb2.ChatMessage(role=role, content=content) for role, content in messages],
            completions=texts, actions=[clean_action(text, self._prefix) for text in texts],
            temperature=params.temperature, seed=params.seed or 0, model=model))

    def pending(self) -> list[pb.ModelCall]:
        """The calls not stored yet, oldest first (`stored(n)` once the first n are)."""
        return list(self._unstored)

    def stored(self, count: int) -> None:
        """The oldest `count` pending calls are in the run store now."""
        del self._unstored[:count]
