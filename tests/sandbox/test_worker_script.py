"""The worker's modules shipped as one script: what joining drops, what it refuses, and that the result runs alone."""

from __future__ import annotations

import shutil
import subprocess
from importlib import resources

import pytest

from env_servers.sandbox.worker_script import DESIGN_MODULES, join_modules, worker_source

FIRST = ("first.py", "import os\n\nLIMIT = 3\n\n\ndef double(x):\n    return 2 * x\n")


def test_imports_of_joined_modules_are_dropped_and_everything_else_kept():
    second = ("second.py", (
        "import os\n"
        "from env_servers.sandbox.first import (\n    LIMIT,\n    double,\n)\n"
        "from json import dumps\n\n\n"
        "def quadruple(x):\n    return double(double(x)) + LIMIT - LIMIT\n"
    ))
    script = join_modules([FIRST, second])
    assert "env_servers" not in script
    assert "from json import dumps" in script and script.count("import os") == 2
    namespace: dict = {}
    exec(compile(script, "<joined>", "exec"), namespace)
    assert namespace["quadruple"](3) == 12


@pytest.mark.parametrize(
    "modules, refusal",
    [
        ([("second.py", "from env_servers.sandbox.third import x\n"), ("third.py", "x = 1\n")],
         "must be joined before"),
        ([FIRST, ("second.py", "from env_servers.sandbox.elsewhere import x\n")], "not shipped"),
        ([FIRST, ("second.py", "def f():\n    from env_servers.sandbox.first import double\n")], "nested"),
        ([FIRST, ("second.py", "import env_servers.sandbox.first\n")], "which joining can drop"),
        ([FIRST, ("second.py", "def double(x):\n    return x\n")], "bound by another module"),
        ([FIRST, ("second.py", "from os import path as double\n")], "bound by another module"),
        ([FIRST, ("second.py", "import sys as os\n")], "bound by another module"),
    ],
)
def test_what_would_break_in_one_namespace_is_refused(modules, refusal):
    with pytest.raises(ValueError, match=refusal):
        join_modules(modules)


def test_every_worker_module_ships_with_a_design():
    package = resources.files("env_servers.sandbox")
    present = {
        f"{folder}/{entry.name}"
        for folder in ("worker", "control")
        for entry in package.joinpath(folder).iterdir()
        if entry.name.endswith(".py") and entry.name != "__init__.py"
    }
    shipped = set(DESIGN_MODULES["split"]) | set(DESIGN_MODULES["shared"])
    assert present <= shipped, f"never shipped: {sorted(present - shipped)}"


def test_the_judge_ships_without_the_control_and_the_control_without_the_judge():
    split, shared = worker_source("split"), worker_source("shared")
    assert "def supervise(" in split and "def child_main(" not in split and "def serve_shared(" not in split
    assert "def serve_shared(" in shared and "def judge_main(" not in shared and "def candidate_main(" not in shared


@pytest.mark.parametrize("design", ["split", "shared"])
def test_the_joined_script_runs_on_the_standard_library_alone(design):
    python = shutil.which("python3", path="/usr/bin:/bin")
    if python is None:
        pytest.skip("no system python3")
    program = (
        "import sys\nsource = sys.stdin.read()\nnamespace = {'__name__': '__sandbox_worker__'}\n"
        "exec(compile(source, '<sandbox worker>', 'exec'), namespace)\nnamespace['warm_up']()\nprint('warm')\n"
    )
    result = subprocess.run([python, "-I", "-c", program], input=worker_source(design), capture_output=True,
                            text=True, timeout=60, cwd="/")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "warm"
