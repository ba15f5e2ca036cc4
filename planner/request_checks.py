"""Checks on a Solve request at the planner's boundary, before any search starts.

Each function returns what is wrong (a message naming the field, its allowed
range and the value, quoted short) or None. `request_problem` covers the
request alone; `sampling_problem` checks the effective config against the
gateway's published limit of samples per call (DescribeBackend.max_samples),
so a search never fails mid-run on a limit it could have known.
"""

from __future__ import annotations

from lats_pb import planner_pb2 as pb
from lats_runtime.finite import non_finite_at
from lats_runtime.quoting import quoted
from lats_runtime.run_context import run_id_problem

from planner.search_config import LatsConfig

MAX_ADDRESS_CHARS = 1024
MAX_MODEL_CHARS = 256


def request_problem(request: pb.SolveRequest) -> str | None:
    if len(request.env_address) > MAX_ADDRESS_CHARS:
        return (f"env_address is {len(request.env_address)} characters; at most "
                f"{MAX_ADDRESS_CHARS} (host:port, a replica list or dns:///name)")
    if request.run_id:
        problem = run_id_problem(request.run_id)
        if problem:
            return problem
    if request.WhichOneof("task") == "inline_task":
        bad = non_finite_at(request.inline_task)
        if bad is not None:
            return (f"inline_task.{bad} is not a finite number (NaN and Infinity have no "
                    "JSON form); send finite numbers only")
    if len(request.config.model) > MAX_MODEL_CHARS:
        return (f"config.model {quoted(request.config.model)} is longer than "
                f"{MAX_MODEL_CHARS} characters")
    return None


def sampling_problem(config: LatsConfig, max_samples: int) -> str | None:
    """n_samples, root_samples and value_samples against the gateway's limit (0: unstated)."""
    if not max_samples:
        return None
    for name in ("n_samples", "root_samples", "value_samples"):
        value = getattr(config, name)
        if value > max_samples:
            return (f"{name}={value} exceeds the gateway's limit of {max_samples} samples "
                    "per call (DescribeBackend.max_samples); ask for fewer, or start the "
                    "gateway with a higher --max-n")
    return None
