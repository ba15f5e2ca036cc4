"""Fixtures: fake part packages for the store, the real 0.5B model for slow tests."""

from __future__ import annotations

import asyncio
import os

import pytest

from llm_gateway import model_store
from tests.local_model.fakes import fake_spec, install_fake_part

SMALL_MODEL = model_store.FAST_MODEL
SLICES = [b"GGUF" + b"a" * 1000, b"b" * 777, b"c" * 5]


@pytest.fixture
def model_cache(tmp_path, monkeypatch):
    """An empty model cache folder, selected through LATS_MODEL_DIR."""
    cache = tmp_path / "models"
    monkeypatch.setenv(model_store.MODEL_DIR_ENV, str(cache))
    return cache


@pytest.fixture
def fake_model(tmp_path, monkeypatch):
    """A registered model 'fake-model' whose three part packages are installed."""
    site = tmp_path / "site"
    site.mkdir()
    spec = fake_spec("fake-model", SLICES)
    for index, (package, data) in enumerate(zip(spec.part_packages, SLICES, strict=True), start=1):
        install_fake_part(site, package, index, data)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setitem(model_store.MODELS, spec.name, spec)
    return spec


def _require_model() -> bool:
    return os.environ.get("LATS_REQUIRE_MODEL", "") not in ("", "0")


@pytest.fixture(scope="session")
def small_model_path():
    """The assembled real 0.5B model; skipped (failed with LATS_REQUIRE_MODEL=1) if absent."""
    spec = model_store.get_spec(SMALL_MODEL)
    try:
        return model_store.locate_model(SMALL_MODEL)
    except model_store.ModelStoreError:
        if not model_store.missing_parts(spec):
            return model_store.ensure_model(SMALL_MODEL, progress=False)
    message = f"the {SMALL_MODEL} model is not installed: run `{spec.fetch_command}`"
    if _require_model():
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def small_backend(small_model_path):
    """One loaded 0.5B LocalBackend shared by a test module (loading takes ~2 s)."""
    from llm_gateway.backends.local import LocalBackend

    backend = LocalBackend(SMALL_MODEL, model_path=small_model_path, max_concurrency=2,
                           n_ctx=4096, max_batch_n=4)
    asyncio.run(backend.load())
    yield backend
    asyncio.run(backend.aclose())
