"""The guide's Python plugin, installed and used as the guide says.

From docs/writing-an-environment.md: the domain, the package's pyproject.toml,
the install commands and the scripted rules. A fresh virtual environment gets
the platform (from this checkout) and the plugin; its own `lats` serves
`countdown` on two replicas that pass the conformance kit, and searches it
with `lats solve` through a scripted gateway and a planner.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from lats_runtime.processes import running_services
from tests import kit

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "writing-an-environment.md"
PLUGIN_ARGS = ["env", "countdown"]


def _blocks(language: str) -> list[str]:
    blocks = re.findall(rf"```{language}\n(.*?)```", GUIDE.read_text(), re.S)
    assert blocks, f"the guide has no {language} block"
    return blocks


def _guide_commands(containing: str) -> list[str]:
    """The guide's shell command lines that contain `containing` (continuations joined)."""
    lines = []
    for block in _blocks("bash"):
        for line in block.replace("\\\n", " ").splitlines():
            command = line.split("#", 1)[0].strip()
            if containing in command:
                lines.append(command)
    assert lines, f"the guide shows no command with {containing!r}"
    return lines


@pytest.fixture(scope="module")
def plugin_venv(tmp_path_factory) -> Path:
    """A folder holding countdown-env/ (from the guide) and countdown-venv/ (installed)."""
    folder = tmp_path_factory.mktemp("guide")
    package = folder / "countdown-env"
    (package / "countdown_env").mkdir(parents=True)
    (package / "countdown_env" / "__init__.py").write_text("")
    (package / "countdown_env" / "domain.py").write_text(_blocks("python")[0])
    pyproject = _blocks("toml")[0]
    declared = tomllib.loads(pyproject)["project"]
    assert "lats-platform" in declared["dependencies"], "the plugin must depend on lats-platform"
    assert declared["entry-points"]["lats.environments"] == {
        "countdown": "countdown_env.domain:CountdownDomain"}
    (package / "pyproject.toml").write_text(pyproject)
    venv_line, = _guide_commands("-m venv")
    run = subprocess.run([sys.executable, *shlex.split(venv_line)[1:]], cwd=folder,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    for line in _guide_commands("pip install"):
        command = shlex.split(line.replace("/path/to/lats", str(ROOT)))
        run = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=900)
        assert run.returncode == 0, f"{line}\n{run.stdout[-3000:]}{run.stderr[-3000:]}"
    return folder


def _python(folder: Path) -> str:
    return str(folder / "countdown-venv" / "bin" / "python")


@pytest.mark.timeout(900)
def test_the_plugin_is_listed_and_passes_the_kit_on_two_replicas(plugin_venv, tmp_path):
    lats = plugin_venv / "countdown-venv" / "bin" / "lats"
    listed = subprocess.run([str(lats), "serve", "env", "--help"], capture_output=True,
                            text=True, timeout=60)
    assert "countdown" in listed.stdout, listed.stdout + listed.stderr
    python = _python(plugin_venv)
    with kit.two_replicas("countdown", PLUGIN_ARGS, timeout=60, python=python) as replicas:
        first, second = replicas
        report = tmp_path / "kit.xml"
        run = subprocess.run(kit.kit_command(first.address, report, replica=second.address,
                                             python=python),
                             capture_output=True, text=True, timeout=300, cwd=plugin_venv)
        assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    results = kit.kit_results(report)
    for must_run in ("test_a_second_replica_answers_identically",
                     "test_a_snapshot_reproduces_later_steps_exactly",
                     "test_damaged_blobs_are_invalid_argument"):
        assert results[must_run] == "passed", must_run


@pytest.mark.timeout(600)
def test_lats_solve_searches_the_plugin_with_the_guides_scripted_model(plugin_venv):
    script = plugin_venv / "countdown-script.json"
    rules = json.loads(_blocks("json")[0])
    script.write_text(json.dumps(rules))
    python = _python(plugin_venv)
    specs = [("env", ["env", "countdown", "--snapshot-key", "k"]),
             ("gateway", ["gateway", "--backend", "scripted", "--script", str(script)]),
             ("planner", ["planner", "--gateway", "{gateway}",
                          "--db", str(plugin_venv / "runs.sqlite3")])]
    solve_line, = _guide_commands("countdown-venv/bin/lats solve")
    options = shlex.split(solve_line.split("--task", 1)[1])
    with running_services(specs, python=python, timeout=90) as running:
        run = subprocess.run(
            [str(plugin_venv / "countdown-venv" / "bin" / "lats"), "solve",
             "--planner", running["planner"].address, "--env", running["env"].address,
             "--task", *options],
            capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert "== SOLVED" in run.stdout, run.stdout[-4000:]
    assert "verified by the environment: score 1" in run.stdout, run.stdout[-4000:]
    for action in ("+ 3", "- 5", "+ 8"):
        assert action in run.stdout
