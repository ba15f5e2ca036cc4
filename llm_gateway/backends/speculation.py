"""Speculative decoding for the local backend: which mode, and how llama.cpp is told.

Modes (`Speculation.mode`):
* ``off``   -- every token from one forward pass of the model (the default:
  on 2 CPU cores neither other mode paid on the search's own request mix;
  bench/README "Speculative decoding" has the figures).
* ``ngram`` -- prompt lookup: llama.cpp's ngram-simple drafts the tokens that
  followed the last `ngram_size` tokens where they occurred before in the
  prompt or the output (refinements copy the program they fix), and the model
  verifies up to `draft_max` of them in one batch.
* ``draft`` -- a small model of the same tokenizer drafts `draft_max` tokens
  for the model to verify (the 0.5B for the 1.5B). The draft model is fetched
  and verified like any model of the store; when it is missing, the backend
  runs without a draft and logs one line saying how to fetch it.

Accepted drafts keep the model's distribution (each position is still sampled
from the model's own logits), but the batched verification computes those
logits with other kernels than one-token decoding, so a near tie can resolve
differently: greedy text is not guaranteed to match `off` token for token.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from llm_gateway import model_store

log = logging.getLogger(__name__)

SPECULATION_MODES = ("off", "ngram", "draft")
DEFAULT_DRAFT_MAX = {"ngram": 16, "draft": 4}


@dataclass(frozen=True)
class Speculation:
    """How the local backend speculates (see the module docstring for the modes)."""

    mode: str = "off"
    draft_model: str = model_store.FAST_MODEL
    draft_max: int | None = None  # tokens drafted (verified in one batch) per step; None: the mode's
    ngram_size: int = 12          # ngram: tokens that must match before a draft is proposed

    def __post_init__(self):
        if self.mode not in SPECULATION_MODES:
            raise ValueError(f"unknown speculation mode {self.mode!r}; "
                             f"valid modes: {', '.join(SPECULATION_MODES)}")
        if (self.draft_max is not None and self.draft_max < 1) or self.ngram_size < 1:
            raise ValueError("draft_max and ngram_size must be >= 1")

    @property
    def tokens_per_draft(self) -> int:
        """draft_max, else the mode's default: 16 copied tokens, or 4 from a draft model."""
        if self.draft_max is not None:
            return self.draft_max
        return DEFAULT_DRAFT_MAX.get(self.mode, 0)


def draft_model_path(speculation: Speculation, target: Path) -> Path | None:
    """The verified draft model file, or None (logged) when it is missing or is the target itself."""
    try:
        path = model_store.locate_model(speculation.draft_model)
    except model_store.ModelStoreError as error:
        log.warning("speculation 'draft': no draft model, so no draft (%s)", error)
        return None
    if path.resolve() == Path(target).resolve():
        log.warning("speculation 'draft': the draft model %s is the model itself, so no draft",
                    speculation.draft_model)
        return None
    return path


def configure(params, speculation: Speculation, target: Path, threads: int) -> str:
    """Set llama.cpp's speculative parameters on `params` (xllamacpp.CommonParams).

    Returns the mode in effect: `speculation.mode`, or ``off`` when a draft
    model was asked for and is missing.
    """
    import xllamacpp

    kinds = xllamacpp.common_speculative_type
    spec = params.speculative
    if speculation.mode == "ngram":
        spec.types = [kinds.COMMON_SPECULATIVE_TYPE_NGRAM_SIMPLE]
        spec.ngram_simple.size_n = speculation.ngram_size
        spec.ngram_simple.size_m = speculation.tokens_per_draft
        return "ngram"
    if speculation.mode == "draft":
        path = draft_model_path(speculation, target)
        if path is None:
            return "off"
        spec.types = [kinds.COMMON_SPECULATIVE_TYPE_DRAFT_SIMPLE]
        spec.draft.mparams.path = str(path)
        spec.draft.n_max = speculation.tokens_per_draft
        spec.draft.cpuparams.n_threads = threads
        spec.draft.cpuparams_batch.n_threads = threads
        return "draft"
    return "off"


def draft_counts(timings: list[dict]) -> tuple[int, int]:
    """(drafted, accepted) tokens over llama.cpp's per-choice timings (0, 0 without speculation)."""
    drafted = sum(int(t.get("draft_n") or 0) for t in timings)
    accepted = sum(int(t.get("draft_n_accepted") or 0) for t in timings)
    return drafted, accepted
