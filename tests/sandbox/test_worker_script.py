"""The worker's modules shipped as one script: what joining drops, what it refuses, and that the result runs alone."""

from __future__ import annotations

import pkgutil
import shutil
import subprocess

import pytest

import env_servers.sandbox.worker
import tests.sandbox.control
from env_servers.sandbox import worker_script
from env_servers.sandbox.worker_script import SPLIT, WorkerDesign, join_modules, memory_root_source, worker_source
from tests.sandbox.control import SHARED

FIRST = ("env_servers.sandbox.first", "import os\n\nLIMIT = 3\n\n\ndef double(x):\n    return 2 * x\n")


def test_imports_of_joined_modules_are_dropped_and_everything_else_kept():
    second = ("env_servers.sandbox.second", (
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


def test_a_design_outside_the_sandbox_package_has_its_own_imports_dropped():
    first = ("tests.control.first", "def triple(x):\n    return 3 * x\n")
    second = ("tests.control.second", (
        "from env_servers.sandbox.first import double\n"
        "from tests.control.first import triple\n\n\n"
        "def sextuple(x):\n    return double(triple(x))\n"
    ))
    script = join_modules([FIRST, first, second])
    assert "tests.control" not in script and "env_servers" not in script
    namespace: dict = {}
    exec(compile(script, "<joined>", "exec"), namespace)
    assert namespace["sextuple"](3) == 18


@pytest.mark.parametrize(
    "modules, refusal",
    [
        ([("env_servers.sandbox.second", "from env_servers.sandbox.third import x\n"),
          ("env_servers.sandbox.third", "x = 1\n")], "must be joined before"),
        ([FIRST, ("env_servers.sandbox.second", "from env_servers.sandbox.elsewhere import x\n")], "not shipped"),
        ([FIRST, ("env_servers.sandbox.second", "def f():\n    from env_servers.sandbox.first import double\n")],
         "nested"),
        ([FIRST, ("env_servers.sandbox.second", "import env_servers.sandbox.first\n")], "which joining can drop"),
        ([FIRST, ("env_servers.sandbox.second", "def double(x):\n    return x\n")], "bound by another module"),
        ([FIRST, ("env_servers.sandbox.second", "from os import path as double\n")], "bound by another module"),
        ([FIRST, ("env_servers.sandbox.second", "import sys as os\n")], "bound by another module"),
        ([("tests.control.first", FIRST[1]), ("tests.control.second", "from tests.control.other import x\n")],
         "not shipped"),
    ],
)
def test_what_would_break_in_one_namespace_is_refused(modules, refusal):
    with pytest.raises(ValueError, match=refusal):
        join_modules(modules)


@pytest.mark.parametrize("package, design", [(env_servers.sandbox.worker, SPLIT), (tests.sandbox.control, SHARED)],
                         ids=["split", "shared"])
def test_every_worker_module_ships_with_its_design(package, design):
    present = {f"{package.__name__}.{module.name}" for module in pkgutil.iter_modules(package.__path__)}
    assert present <= set(design.modules), f"never shipped: {sorted(present - set(design.modules))}"


def test_the_production_sandbox_offers_the_split_design_alone():
    designs = [value for value in vars(worker_script).values() if isinstance(value, WorkerDesign)]
    assert designs == [SPLIT]
    assert all(name.startswith("env_servers.sandbox.") for name in SPLIT.modules)


def test_the_judge_ships_without_the_control_and_the_control_without_the_judge():
    split, shared = worker_source(SPLIT), worker_source(SHARED)
    assert "def supervise(" in split and "def child_main(" not in split and "def serve_shared(" not in split
    assert "def serve_shared(" in shared and "def judge_main(" not in shared and "def candidate_main(" not in shared


@pytest.mark.parametrize("design", [SPLIT, SHARED], ids=lambda design: design.name)
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


def test_the_memory_root_script_runs_on_the_standard_library_alone_and_says_how_to_call_it():
    """Docker's first process (memory_root.py after tree_copy.py): joined, it needs no package; bad usage is told."""
    python = shutil.which("python3", path="/usr/bin:/bin")
    if python is None:
        pytest.skip("no system python3")
    result = subprocess.run([python, "-I", "-c", memory_root_source(), "--size"], capture_output=True, text=True,
                            timeout=60, cwd="/")
    assert result.returncode == 1 and "--size BYTES -- WORKER-COMMAND" in result.stderr, result.stderr


def test_a_syscall_let_through_for_several_values_is_denied_for_every_other():
    """The worker's filter lets unshare through for exactly the judge's flags or exactly CLONE_NEWPID."""
    from env_servers.sandbox.worker.hardening import denied_unless_one_of
    from env_servers.sandbox.worker.run_namespaces import CLONE_NEWPID, RUN_FLAGS

    patterns = denied_unless_one_of([RUN_FLAGS, CLONE_NEWPID])

    def denied(argument):
        return any(argument & mask == value for mask, value in patterns)

    assert not denied(RUN_FLAGS) and not denied(CLONE_NEWPID)
    user, ipc = 0x10000000, 0x08000000
    for other in (0, ipc, RUN_FLAGS | CLONE_NEWPID, CLONE_NEWPID | user, RUN_FLAGS | user, RUN_FLAGS | 1 << 40, 0x80):
        assert denied(other), hex(other)


def test_the_worker_makes_its_own_user_namespace_only_to_make_run_namespaces_in():
    from env_servers.sandbox.worker.startup import parse_arguments

    options = parse_arguments(["--seccomp", "--run-namespaces", "--own-user-namespace"], "split")
    assert options["own-user-namespace"] and options["run-namespaces"]
    with pytest.raises(SystemExit, match="needs --run-namespaces"):
        parse_arguments(["--seccomp", "--own-user-namespace"], "split")


def test_the_tests_namespace_imports_no_module_that_does_something_on_import():
    """Found attacking the sandbox: a program whose module object was named `unittest.__main__` made the
    tests' process import it, which ran unittest's discovery in the tests' working directory."""
    import sys

    from env_servers.sandbox.worker.call_proxy import judge_namespace

    names = [["u", "module", "unittest.__main__"], ["z", "module", "this"], ["m", "module", "math"]]
    already = "unittest.__main__" in sys.modules, "this" in sys.modules
    namespace = judge_namespace(None, names)
    assert namespace["m"] is sys.modules["math"]
    assert type(namespace["u"]).__name__ == "Opaque" and type(namespace["z"]).__name__ == "Opaque"
    assert ("unittest.__main__" in sys.modules, "this" in sys.modules) == already
