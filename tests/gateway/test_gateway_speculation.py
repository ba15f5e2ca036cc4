"""Speculative decoding settings and their accounting (no model loaded: see
tests/local_model/test_speculation_real.py for the real model)."""

from __future__ import annotations

import logging

import pytest
from click.testing import CliRunner

from llm_gateway.backends.base import Completion, GenerationRequest, GenerationResult
from llm_gateway.backends.exchange_log import draft_tokens, exchange_record, result_from_record
from llm_gateway.backends.speculation import Speculation, configure, draft_counts
from llm_gateway.cli import serve_gateway

from .helpers import USER, EchoBackend, running_gateway

xllamacpp = pytest.importorskip("xllamacpp")
KINDS = xllamacpp.common_speculative_type


class DraftingBackend(EchoBackend):
    """Reports drafted and accepted tokens as the local backend does."""

    async def generate(self, request: GenerationRequest) -> GenerationResult:
        result = await super().generate(request)
        result.extra.update(draft_tokens=12, draft_accepted_tokens=7)
        return result


def test_unknown_modes_and_sizes_are_refused_with_the_valid_ones():
    with pytest.raises(ValueError, match="off, ngram, draft"):
        Speculation("eagle")
    with pytest.raises(ValueError, match=">= 1"):
        Speculation("ngram", draft_max=0)
    assert Speculation("ngram").tokens_per_draft == 16
    assert Speculation("draft").tokens_per_draft == 4
    assert Speculation("draft", draft_max=7).tokens_per_draft == 7


def test_ngram_mode_sets_prompt_lookup_with_its_sizes(tmp_path):
    params = xllamacpp.CommonParams()
    assert configure(params, Speculation("ngram", ngram_size=5, draft_max=9), tmp_path / "m.gguf",
                     threads=2) == "ngram"
    assert list(params.speculative.types) == [KINDS.COMMON_SPECULATIVE_TYPE_NGRAM_SIMPLE]
    assert (params.speculative.ngram_simple.size_n, params.speculative.ngram_simple.size_m) == (5, 9)


def test_off_leaves_llama_cpp_without_speculation(tmp_path):
    params = xllamacpp.CommonParams()
    assert configure(params, Speculation(), tmp_path / "m.gguf", threads=2) == "off"
    assert list(params.speculative.types) == [KINDS.COMMON_SPECULATIVE_TYPE_NONE]


def test_a_missing_draft_model_means_no_draft_and_a_log_line_with_the_fix(
        tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("LATS_MODEL_DIR", str(tmp_path / "empty"))
    params = xllamacpp.CommonParams()
    with caplog.at_level(logging.WARNING):
        mode = configure(params, Speculation("draft"), tmp_path / "target.gguf", threads=2)
    assert mode == "off"
    assert list(params.speculative.types) == [KINDS.COMMON_SPECULATIVE_TYPE_NONE]
    assert "no draft" in caplog.text and "lats model fetch qwen2.5-coder-0.5b" in caplog.text


def test_draft_counts_sum_the_choices_timings():
    assert draft_counts([{"draft_n": 10, "draft_n_accepted": 4}, {"draft_n": 6,
                                                                  "draft_n_accepted": 6}]) == (16, 10)
    assert draft_counts([{"predicted_ms": 3.0}, {}]) == (0, 0)


def test_recordings_keep_draft_counts_and_never_claim_more_accepted_than_drafted():
    request = GenerationRequest(messages=USER, max_tokens=4)
    result = GenerationResult([Completion("x")], 3, 4, "m",
                              extra={"draft_tokens": 5, "draft_accepted_tokens": 3})
    record = exchange_record(request, result)
    assert record["usage"]["draft_tokens"] == 5
    assert draft_tokens(result_from_record(record)) == (5, 3)
    plain = exchange_record(request, GenerationResult([Completion("x")], 3, 4, "m"))
    assert "draft_tokens" not in plain["usage"]
    assert draft_tokens(GenerationResult([], 1, 1, "m", extra={"draft_tokens": 2,
                                                               "draft_accepted_tokens": 9})) == (2, 2)


async def test_the_gateway_reports_draft_tokens_apart_from_completion_tokens():
    async with running_gateway(DraftingBackend(prompt_tokens=10, completion_tokens=5)) as client:
        first = await client.generate(USER, run_id="spec")
        await client.generate(USER, run_id="spec")
        run = await client.get_usage("spec")
    assert (first.usage.completion_tokens, first.usage.draft_tokens,
            first.usage.draft_accepted_tokens) == (5, 12, 7)
    assert (run.completion_tokens, run.draft_tokens, run.draft_accepted_tokens) == (10, 24, 14)


def test_the_cli_refuses_an_unknown_speculation_mode_naming_the_valid_ones():
    outcome = CliRunner().invoke(serve_gateway, ["--backend", "scripted", "--speculation", "fast"])
    assert outcome.exit_code == 2
    assert "'off', 'ngram', 'draft'" in outcome.output
