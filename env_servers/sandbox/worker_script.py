"""The in-sandbox worker as one script: its modules joined in order, their imports of each other dropped.

The worker's modules import each other as usual, so the host can import,
lint and test them; in the sandbox they run as one script in one namespace
(the sandbox holds no copy of this package), compiled once per worker. Joining
drops each top-level `from env_servers.sandbox... import ...` of a shipped
module, since the names it imports are already defined above it, and refuses
(ValueError) what would break in one namespace: an import of a module not
shipped or not joined before the importer, an import of the package nested
in a function, and one top-level name bound by two modules to different things.
"""

from __future__ import annotations

import ast
from importlib import resources

PACKAGE = "env_servers.sandbox"
COMMON_MODULES = (
    "plain_data.py",
    "ipc_objects.py",
    "pristine.py",
    "worker/state.py",
    "worker/host_channel.py",
    "worker/texts.py",
    "worker/run_errors.py",
    "worker/assertions.py",
    "worker/program.py",
    "worker/run_process.py",
    "worker/output.py",
    "worker/hardening.py",
    "worker/cleanup.py",
    "worker/startup.py",
)
DESIGN_MODULES = {
    "split": COMMON_MODULES + (
        "worker/candidate.py",
        "worker/judge_link.py",
        "worker/call_proxy.py",
        "worker/tester.py",
        "worker/judge.py",
        "worker/supervisor.py",
        "worker/main.py",
    ),
    "shared": COMMON_MODULES + ("control/shared_child.py", "control/shared_worker.py"),
}


def module_name(path: str) -> str:
    """"worker/judge.py" -> "env_servers.sandbox.worker.judge"."""
    return f"{PACKAGE}.{path.removesuffix('.py').replace('/', '.')}"


def worker_source(design: str = "split") -> str:
    """The worker program of `design` ("split": the judge; "shared": the insecure control) as one script."""
    package = resources.files(PACKAGE)
    paths = DESIGN_MODULES[design]
    return join_modules([(path, package.joinpath(path).read_text()) for path in paths])


def join_modules(modules: list[tuple[str, str]]) -> str:
    """Join (path, source) pairs, in order, into one script (see the module's docstring)."""
    joined_before: set[str] = set()
    shipped = {module_name(path) for path, _ in modules}
    defined: dict[str, str] = {}
    parts = []
    for path, source in modules:
        tree = ast.parse(source, path)
        dropped = package_imports(tree, path, shipped, joined_before)
        record_definitions(tree, path, defined)
        lines = source.splitlines(keepends=True)
        for node in reversed(dropped):
            lines[node.lineno - 1 : node.end_lineno] = []
        parts.append("".join(lines))
        joined_before.add(module_name(path))
    return "\n\n".join(parts)


def package_imports(tree: ast.Module, path: str, shipped: set[str], joined_before: set[str]) -> list[ast.ImportFrom]:
    """The top-level imports of shipped modules in `tree`, in order; ValueError for any that cannot be dropped."""
    top_level = [node for node in tree.body if isinstance(node, ast.ImportFrom)]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(alias.name.startswith(PACKAGE) for alias in node.names):
            raise ValueError(f"{path}:{node.lineno}: use `from {PACKAGE}... import name`, which joining can drop")
        if not (isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PACKAGE)):
            continue
        if node not in top_level:
            raise ValueError(f"{path}:{node.lineno}: a nested import of {node.module} cannot be joined")
        if node.module not in shipped:
            raise ValueError(f"{path}:{node.lineno}: {node.module} is not shipped with this worker")
        if node.module not in joined_before:
            raise ValueError(f"{path}:{node.lineno}: {node.module} must be joined before {path}")
        found.append(node)
    return sorted(found, key=lambda node: node.lineno)


def record_definitions(tree: ast.Module, path: str, defined: dict[str, str]) -> None:
    """Note the top-level names `tree` binds; ValueError if an earlier module bound one of them otherwise.

    The same import in two modules (`import os`) binds the same object and is allowed.
    """
    for node in tree.body:
        for name, meaning in top_level_bindings(node, path):
            if defined.get(name, meaning) != meaning:
                raise ValueError(f"{path}:{node.lineno}: {name} is bound by another module as well")
            defined[name] = meaning


def top_level_bindings(node: ast.stmt, path: str) -> list[tuple[str, str]]:
    """(name, what it means) for each name a top-level statement binds: an import's text, or the defining module."""
    if isinstance(node, ast.Import):
        return [((alias.asname or alias.name).split(".")[0], f"import {alias.name}") for alias in node.names]
    if isinstance(node, ast.ImportFrom) and not (node.module or "").startswith(PACKAGE):
        return [(alias.asname or alias.name, f"from {node.module} import {alias.name}") for alias in node.names]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [(node.name, path)]
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [(target.id, path) for target in targets if isinstance(target, ast.Name)]
    return []
