"""Installed packages add environments through the `lats.environments` entry points."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import grpc
import pytest
from lats_pb import environment_pb2, environment_pb2_grpc

from env_servers.registry import BUILTIN_DOMAINS, domain_class, registered_domains
from lats_runtime.processes import start_service

PLUGIN = textwrap.dedent('''
    """A plugin environment: Game of 24 under another name, with its own settings."""
    from dataclasses import dataclass
    from pathlib import Path

    from env_servers.core.domain_settings import setting
    from env_servers.game24 import Game24Domain


    @dataclass(frozen=True)
    class TinySettings:
        data: Path | None = setting(None, env="TINY24_DATA", dir_okay=False, help="Puzzles.")
        greeting: str = setting("hello", env="TINY24_GREETING", help="Plugin-only setting.")


    class TinyDomain(Game24Domain):
        name = "tiny24"
        description = "Tiny24: the Game of 24 served by a plugin package."
        settings_class = TinySettings
''')


@pytest.fixture
def plugin_dir(tmp_path, monkeypatch) -> Path:
    """A package `tiny24_plugin` and its dist-info declaring two entry points."""
    (tmp_path / "tiny24_plugin.py").write_text(PLUGIN)
    info = tmp_path / "tiny24_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tiny24-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[lats.environments]\ntiny24 = tiny24_plugin:TinyDomain\n"
        "game24 = tiny24_plugin:TinyDomain\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_an_entry_point_adds_a_domain_but_cannot_replace_a_builtin(plugin_dir, caplog):
    with caplog.at_level(logging.WARNING, logger="env_servers.registry"):
        domains = registered_domains()
    assert domains["tiny24"] == "tiny24_plugin:TinyDomain"
    assert domains["game24"] == BUILTIN_DOMAINS["game24"]
    assert "'game24' is a built-in environment" in caplog.text
    assert domain_class("tiny24").name == "tiny24"


@pytest.mark.timeout(60)
def test_a_plugin_domain_is_served_with_its_own_flags(plugin_dir):
    env = {"PYTHONPATH": str(plugin_dir)}
    listed = subprocess.run([sys.executable, "-m", "lats", "serve", "env", "--help"],
                            capture_output=True, text=True, env={**os.environ, **env}, timeout=60)
    assert "tiny24" in listed.stdout, listed.stdout + listed.stderr
    shown = subprocess.run([sys.executable, "-m", "lats", "serve", "env", "tiny24", "--help"],
                           capture_output=True, text=True, env={**os.environ, **env}, timeout=60)
    assert "--greeting" in shown.stdout and "TINY24_GREETING" in shown.stdout
    service = start_service("env", ["env", "tiny24", "--greeting", "hi"], env=env, timeout=30)
    try:
        with grpc.insecure_channel(service.address) as channel:
            stub = environment_pb2_grpc.EnvironmentStub(channel)
            assert stub.Describe(environment_pb2.DescribeRequest(), timeout=5).name == "tiny24"
    finally:
        assert service.stop(timeout=10) == 0, service.log_tail()
