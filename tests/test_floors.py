"""Nothing below imports what stands above it, and no service imports another.

The floors, bottom up: the generated protos (lats_pb) and the vendored data;
lats_runtime; the planner's Python client (lats_client) and the OpenEnv client
of our environments (lats_openenv, which imports nothing first-party, so it
imports without the server side; env_servers serves its models); the services
(llm_gateway, env_servers, planner), each standing on the floors below and
never on a sibling (a service's client of another service lives in the
caller, as planner/gateway_client.py does); the `lats` command on top;
the tests above everything (nothing imports them: what only tests need, such
as the sandbox's insecure control, stays with them).
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIRST_PARTY = {"lats_pb", "lats_data", "lats_runtime", "lats_client", "lats_openenv",
               "llm_gateway", "env_servers", "planner", "lats", "tests"}
BASE = {"lats_pb", "lats_data", "lats_runtime"}
MAY_IMPORT = {
    "lats_runtime": {"lats_pb", "lats_data"},
    "lats_client": BASE,
    "llm_gateway": BASE,
    "env_servers": BASE | {"lats_openenv"},   # the OpenEnv app serves the client's models
    "planner": BASE | {"lats_client"},   # `lats solve` drives the planner through its client
}


def first_party_imports(package: str) -> dict[str, set[str]]:
    """Each first-party top-level package `package` imports, with the files that do."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            else:
                continue
            for module in modules:
                top = module.split(".")[0]
                if top in FIRST_PARTY and top != package:
                    found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


@pytest.mark.parametrize("package", sorted(MAY_IMPORT))
def test_a_package_imports_only_the_floors_below_it(package):
    imported = first_party_imports(package)
    assert imported, f"{package} imports nothing first-party: is the scan looking at it?"
    upward = {top: sorted(files) for top, files in imported.items()
              if top not in MAY_IMPORT[package]}
    assert not upward, f"{package} imports what stands above or beside it: {upward}"


def test_the_openenv_client_imports_nothing_first_party():
    assert (ROOT / "lats_openenv" / "client.py").exists()
    assert first_party_imports("lats_openenv") == {}
