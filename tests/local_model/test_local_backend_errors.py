"""LocalBackend failures that need no real model: each names the command that fixes it."""

from __future__ import annotations

import dataclasses

import grpc
import pytest

from llm_gateway import model_store
from llm_gateway.backends.base import BackendError, GenerationRequest
from llm_gateway.backends.local import LocalBackend

HELLO = GenerationRequest(messages=(("user", "hello"),), max_tokens=4)


@pytest.fixture
def parts_not_installed(monkeypatch):
    """The 0.5B model as on a fresh machine: no part packages installed."""
    spec = model_store.get_spec("qwen2.5-coder-0.5b")
    absent = dataclasses.replace(spec, part_packages=("lats-test-absent-part1",))
    monkeypatch.setitem(model_store.MODELS, spec.name, absent)


def test_missing_model_fails_at_construction_with_the_fetch_command(model_cache,
                                                                    parts_not_installed):
    with pytest.raises(BackendError) as caught:
        LocalBackend("qwen2.5-coder-0.5b")

    assert caught.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert "run `lats model fetch qwen2.5-coder-0.5b` (or `make setup`)" in caught.value.message


def test_missing_explicit_model_path(tmp_path):
    with pytest.raises(BackendError) as caught:
        LocalBackend("qwen2.5-coder-0.5b", model_path=tmp_path / "absent.gguf")
    assert caught.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert "absent.gguf does not exist" in caught.value.message
    assert "lats model fetch" in caught.value.message


def test_a_file_that_is_not_gguf_is_refused(tmp_path):
    bogus = tmp_path / "model.gguf"
    bogus.write_bytes(b"<html>not a model</html>")
    with pytest.raises(BackendError, match="not a GGUF") as caught:
        LocalBackend("qwen2.5-coder-0.5b", model_path=bogus)
    assert caught.value.code == grpc.StatusCode.FAILED_PRECONDITION


async def test_a_truncated_gguf_fails_to_load_with_the_fix(tmp_path):
    truncated = tmp_path / "model.gguf"
    truncated.write_bytes(b"GGUF" + b"\x03\x00\x00\x00" + b"\x00" * 64)
    backend = LocalBackend("qwen2.5-coder-0.5b", model_path=truncated)
    try:
        with pytest.raises(BackendError) as caught:
            await backend.generate(HELLO)
        assert caught.value.code == grpc.StatusCode.FAILED_PRECONDITION
        assert "could not load" in caught.value.message
        assert "lats model fetch qwen2.5-coder-0.5b" in caught.value.message
    finally:
        await backend.aclose()


async def test_a_closed_backend_says_so(tmp_path):
    path = tmp_path / "model.gguf"
    path.write_bytes(b"GGUF")
    backend = LocalBackend("qwen2.5-coder-0.5b", model_path=path)
    await backend.aclose()
    await backend.aclose()  # idempotent
    with pytest.raises(BackendError) as caught:
        await backend.generate(HELLO)
    assert caught.value.code == grpc.StatusCode.UNAVAILABLE


def test_settings_are_reported(tmp_path):
    path = tmp_path / "model.gguf"
    path.write_bytes(b"GGUF")
    backend = LocalBackend("", model_path=path, max_concurrency=3, max_batch_n=5)
    assert backend.model == model_store.DEFAULT_MODEL
    assert backend.max_concurrency == 3
    assert backend.slots == 15
    assert backend.name == "local"
