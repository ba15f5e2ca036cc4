"""deploy/openenv/lats_env is an OpenEnv environment directory: OpenEnv's own
validator accepts it (text and JSON), its lock is of its pyproject, and its
server entry point serves an environment that OpenEnv's runtime validator
passes. No network: the validator reads files, the server is local."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from lats_runtime.processes import _LISTENING

ROOT = Path(__file__).resolve().parents[2]
DIRECTORY = ROOT / "deploy" / "openenv" / "lats_env"
# The directory's server runs on the project as this checkout has it (an editable
# install made before a package was added would not map that package).
CHECKOUT = {**os.environ, "PYTHONPATH": os.pathsep.join(
    filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}


def _openenv(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "openenv.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_openenv_validate_accepts_the_directory():
    done = _openenv("validate", str(DIRECTORY))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "[OK] lats: Ready for multi-mode deployment" in done.stdout


def test_openenv_validate_json_report_passes_with_the_modes_it_supports():
    done = _openenv("validate", str(DIRECTORY), "--json", "--verbose")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["passed"] is True and report["issues"] == []
    assert report["environment"] == "lats"
    modes = report["deployment_modes"]
    assert modes["uv_run"] and modes["python_module"] and modes["openenv_serve"]


def test_the_lock_is_of_this_pyproject():
    project = tomllib.loads((DIRECTORY / "pyproject.toml").read_text())["project"]
    lock = tomllib.loads((DIRECTORY / "uv.lock").read_text())
    locked = {package["name"]: package for package in lock["package"]}
    own = locked[project["name"]]
    assert own["source"] == {"editable": "."}
    wanted = sorted(dep.split("[")[0].split("=")[0] for dep in project["dependencies"])
    assert sorted(d["name"] for d in own["metadata"]["requires-dist"]) == wanted
    assert locked["lats-platform"]["source"] == {"editable": "../../../"}


@contextlib.contextmanager
def _entry_point_server(*args: str):
    process = subprocess.Popen([sys.executable, "-m", "server.app", *args, "--port", "0"],
                               cwd=DIRECTORY, env=CHECKOUT, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    try:
        lines = []
        for line in process.stdout:
            lines.append(line)
            match = _LISTENING.search(line)
            if match:
                break
        else:
            raise AssertionError(f"the server exited:\n{''.join(lines)}")
        yield f"http://{match.group(1)}"
    finally:
        process.terminate()
        process.wait(30)


@pytest.mark.timeout(180)
def test_the_server_entry_point_serves_what_openenvs_runtime_validator_passes():
    with _entry_point_server("game24") as url:
        done = _openenv("validate", "--url", url, "--timeout", "30")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["passed"] is True and report["mode"] == "simulation"


def test_openenv_yamls_app_is_built_from_the_environment_variables():
    program = ("import server.app as module; app = module.app; "
               "print(sorted(r.path for r in app.routes if r.path in ('/reset', '/step')))")
    done = subprocess.run([sys.executable, "-c", program], cwd=DIRECTORY, text=True,
                          capture_output=True, timeout=120,
                          env={**CHECKOUT, "LATS_OPENENV_ENVIRONMENT": "game24"})
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "['/reset', '/step']"
