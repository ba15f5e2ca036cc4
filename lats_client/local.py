"""A whole LATS suite on this machine, started from a script or a notebook.

    from lats_client import local_suite

    with local_suite("game24") as suite:
        search = suite.planner.solve(suite.env, "game24/900", n=2, k=10)
        print(search.result().actions)

`local_suite` starts an environment server, the LLM gateway and a planner as
separate processes on free loopback ports, as `lats bench --start-services`
does (`python -m lats serve ...`: the same commands, health-checked before it
yields), and stops them, in reverse order, when the block ends, also on an
error. The services never outlive the Python process that started them.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from lats_runtime.processes import ServiceStartError, running_services

from lats_client.planner import Planner

SLOW_CALL_SECONDS = 1800  # a CPU model on a busy machine: minutes per call are normal


@dataclass(frozen=True)
class LocalSuite:
    """The started services' addresses (host:port), and a client of the planner."""

    env: str
    gateway: str
    planner_address: str
    planner: Planner
    db: str


@contextlib.contextmanager
def local_suite(env: str = "game24", *, env_args: Sequence[str] = (), backend: str = "local",
                model: str = "", gateway_args: Sequence[str] = (), db: str | None = None,
                timeout: float = 900.0) -> Iterator[LocalSuite]:
    """Starts `lats serve env ENV`, `lats serve gateway` and `lats serve planner` here.

    `backend` and `model` choose the gateway's model (the embedded default:
    backend "local", model ""), `gateway_args` and `env_args` go to those
    commands as written (e.g. `["--script", "rules.json"]` with backend
    "scripted"), and `db` is the planner's run store (default: a temporary
    SQLite file, deleted on exit). Raises ServiceStartError (lats_runtime.processes)
    naming the service that did not start, with its last output.
    """
    with contextlib.ExitStack() as stack:
        if db is None:
            db = str(Path(stack.enter_context(tempfile.TemporaryDirectory())) / "runs.sqlite3")
        specs = [
            ("env", ["env", env, *env_args]),
            ("gateway", ["gateway", "--backend", backend, *(["--model", model] if model else []),
                         "--deadline", str(SLOW_CALL_SECONDS), *gateway_args]),
            ("planner", ["planner", "--gateway", "{gateway}", "--db", db,
                         "--model-timeout", str(SLOW_CALL_SECONDS)]),
        ]
        running = stack.enter_context(running_services(specs, timeout=timeout))
        planner = Planner(running["planner"].address)
        stack.callback(planner.close)
        yield LocalSuite(env=running["env"].address, gateway=running["gateway"].address,
                         planner_address=running["planner"].address, planner=planner, db=db)


__all__ = ["LocalSuite", "ServiceStartError", "local_suite"]
