"""The in-sandbox worker as one script: a design's modules joined in order, their imports of each other dropped.

The worker's modules import each other as usual, so the host can import,
lint and test them; in the sandbox they run as one script in one namespace
(the sandbox holds no copy of this package), compiled once per worker. A
`WorkerDesign` names the modules of one worker program; `SPLIT` is the
production one (the judge apart from the program). Joining drops each
top-level `from X import ...` of a module X shipped with the design, since
the names it imports are already defined above it, and refuses (ValueError)
what would break in one namespace: an import of a module of the sandbox's
package (or of a shipped module's package) that is not shipped or not joined
before the importer, such an import nested in a function, and one top-level
name bound by two modules to different things.
"""

from __future__ import annotations

import ast
import importlib.util
from dataclasses import dataclass

PACKAGE = "env_servers.sandbox"
COMMON_MODULES = (  # every design's first modules: the codec, the IPC objects, the pristine checks, the start
    "env_servers.sandbox.plain_data",
    "env_servers.sandbox.ipc_objects",
    "env_servers.sandbox.pristine",
    "env_servers.sandbox.worker.state",
    "env_servers.sandbox.worker.host_channel",
    "env_servers.sandbox.worker.texts",
    "env_servers.sandbox.worker.run_errors",
    "env_servers.sandbox.worker.assertions",
    "env_servers.sandbox.worker.program",
    "env_servers.sandbox.worker.run_process",
    "env_servers.sandbox.worker.output",
    "env_servers.sandbox.worker.hardening",
    "env_servers.sandbox.worker.cleanup",
    "env_servers.sandbox.worker.startup",
)


@dataclass(frozen=True)
class WorkerDesign:
    """One worker program and what a launcher needs to know of it.

    name: what its --design flag must say (its entry module checks).
    modules: dotted module names in join order; the last is the entry point.
    verdict_isolated: the verdict is computed in a process apart from the program's.
    seccomp: the worker loads the seccomp filter when a secure backend asks (--seccomp).
    run_namespaces: each run's judge makes the run namespaces of its own where the backend
    grants what that takes (bwrap: --run-namespaces; see worker/run_namespaces.py).
    """

    name: str
    modules: tuple[str, ...]
    verdict_isolated: bool
    seccomp: bool
    run_namespaces: bool = False


SPLIT = WorkerDesign(
    "split",
    COMMON_MODULES + (
        "env_servers.sandbox.worker.run_namespaces",
        "env_servers.sandbox.worker.candidate",
        "env_servers.sandbox.worker.judge_link",
        "env_servers.sandbox.worker.call_proxy",
        "env_servers.sandbox.worker.tester",
        "env_servers.sandbox.worker.judge",
        "env_servers.sandbox.worker.supervisor",
        "env_servers.sandbox.worker.main",
    ),
    verdict_isolated=True,
    seccomp=True,
    run_namespaces=True,
)  # the production worker: main.py tells how its modules fit


def worker_source(design: WorkerDesign = SPLIT) -> str:
    """The worker program of `design` as one script."""
    return join_modules([(name, module_source(name)) for name in design.modules])


def module_source(name: str) -> str:
    """The source of the importable module `name` (ValueError if it has none)."""
    spec = importlib.util.find_spec(name)
    source = spec.loader.get_source(name) if spec is not None and spec.loader is not None else None
    if source is None:
        raise ValueError(f"no source found for the worker module {name}")
    return source


def join_modules(modules: list[tuple[str, str]]) -> str:
    """Join (module name, source) pairs, in order, into one script (see the module's docstring)."""
    joined_before: set[str] = set()
    shipped = {name for name, _ in modules}
    defined: dict[str, str] = {}
    parts = []
    for name, source in modules:
        tree = ast.parse(source, name)
        dropped = worker_imports(tree, name, shipped, joined_before)
        record_definitions(tree, name, shipped, defined)
        lines = source.splitlines(keepends=True)
        for node in reversed(dropped):
            lines[node.lineno - 1 : node.end_lineno] = []
        parts.append("".join(lines))
        joined_before.add(name)
    return "\n\n".join(parts)


def is_worker_module(module: str, shipped: set[str]) -> bool:
    """True if `module` is shipped, or belongs to the sandbox's package or to a shipped module's package."""
    packages = {PACKAGE} | {name.rpartition(".")[0] for name in shipped if "." in name}
    return module in shipped or any(module == package or module.startswith(package + ".") for package in packages)


def worker_imports(tree: ast.Module, name: str, shipped: set[str], joined_before: set[str]) -> list[ast.ImportFrom]:
    """The top-level imports of shipped modules in `tree`, in order; ValueError for any that cannot be dropped."""
    top_level = [node for node in tree.body if isinstance(node, ast.ImportFrom)]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(is_worker_module(alias.name, shipped) for alias in node.names):
            raise ValueError(f"{name}:{node.lineno}: use `from module import name`, which joining can drop")
        if not (isinstance(node, ast.ImportFrom) and is_worker_module(node.module or "", shipped)):
            continue
        if node not in top_level:
            raise ValueError(f"{name}:{node.lineno}: a nested import of {node.module} cannot be joined")
        if node.module not in shipped:
            raise ValueError(f"{name}:{node.lineno}: {node.module} is not shipped with this worker")
        if node.module not in joined_before:
            raise ValueError(f"{name}:{node.lineno}: {node.module} must be joined before {name}")
        found.append(node)
    return sorted(found, key=lambda node: node.lineno)


def record_definitions(tree: ast.Module, name: str, shipped: set[str], defined: dict[str, str]) -> None:
    """Note the top-level names `tree` binds; ValueError if an earlier module bound one of them otherwise.

    The same import in two modules (`import os`) binds the same object and is allowed.
    """
    for node in tree.body:
        for bound, meaning in top_level_bindings(node, name, shipped):
            if defined.get(bound, meaning) != meaning:
                raise ValueError(f"{name}:{node.lineno}: {bound} is bound by another module as well")
            defined[bound] = meaning


def top_level_bindings(node: ast.stmt, name: str, shipped: set[str]) -> list[tuple[str, str]]:
    """(name, what it means) for each name a top-level statement binds: an import's text, or the defining module."""
    if isinstance(node, ast.Import):
        return [((alias.asname or alias.name).split(".")[0], f"import {alias.name}") for alias in node.names]
    if isinstance(node, ast.ImportFrom) and not is_worker_module(node.module or "", shipped):
        return [(alias.asname or alias.name, f"from {node.module} import {alias.name}") for alias in node.names]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [(node.name, name)]
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [(target.id, name) for target in targets if isinstance(target, ast.Name)]
    return []


MEMORY_ROOT_MODULES = ("env_servers.sandbox.elf_needs", "env_servers.sandbox.tree_copy", "env_servers.sandbox.memory_root")


def memory_root_source() -> str:
    """The script a docker container runs first to put its root in memory (memory_root.py)."""
    return join_modules([(name, module_source(name)) for name in MEMORY_ROOT_MODULES])
