"""Requests to the planner, built from plain Python arguments.

A search's settings are SearchConfig's fields by name (planner.proto): a
mapping or a SearchConfig as `config`, then the shortcuts (`method`, `n`,
`k`, `depth`, `max_calls`, `max_tokens`), then any other field as a keyword
(`temperature=0.8`, `greedy_first=False`, ...). A name SearchConfig lacks is
a TypeError that lists the names it has.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from google.protobuf import json_format

from lats_pb import planner_pb2 as pb

from lats_runtime.run_status import parse, to_wire

CONFIG_FIELDS = tuple(f.name for f in pb.SearchConfig.DESCRIPTOR.fields)
SHORTCUTS = {"n": "n_samples", "k": "iterations", "depth": "max_depth"}


def search_config(config: pb.SearchConfig | Mapping[str, Any] | None = None, *,
                  method: str | None = None, n: int | None = None, k: int | None = None,
                  depth: int | None = None, max_calls: int | None = None,
                  max_tokens: int | None = None, **fields: Any) -> pb.SearchConfig:
    """A SearchConfig from `config` and the keyword settings (see the module docstring)."""
    message = pb.SearchConfig()
    if isinstance(config, pb.SearchConfig):
        message.CopyFrom(config)
    elif config is not None:
        _check_names(config)
        json_format.ParseDict(dict(config), message)
    _check_names(fields)
    shortcuts = {SHORTCUTS[name]: value for name, value in (("n", n), ("k", k), ("depth", depth))
                 if value is not None}
    if method is not None:
        shortcuts["method"] = method
    for name, value in {**shortcuts, **fields}.items():
        if name == "budget" and isinstance(value, Mapping):
            json_format.ParseDict(dict(value), message.budget)
        elif value is not None:
            setattr(message, name, value)
    if max_calls is not None:
        message.budget.max_calls = max_calls
    if max_tokens is not None:
        message.budget.max_total_tokens = max_tokens
    return message


def _check_names(fields: Mapping[str, Any]) -> None:
    unknown = sorted(set(fields) - set(CONFIG_FIELDS))
    if unknown:
        raise TypeError(f"SearchConfig has no field {unknown[0]!r}; its fields: "
                        f"{', '.join(CONFIG_FIELDS)} (and the shortcuts method, n, k, depth, "
                        "max_calls, max_tokens)")


def solve_request(env: str, task: str | None, inline_task: Mapping[str, Any] | None,
                  config: pb.SearchConfig, run_id: str | None) -> pb.SolveRequest:
    """A SolveRequest for `task` (an id) or `inline_task` (a JSON object), not both."""
    if (task is None) == (inline_task is None):
        raise TypeError("give the task as task='ID' or inline_task={...}, exactly one")
    request = pb.SolveRequest(env_address=env, config=config, run_id=run_id or "")
    if task is not None:
        request.task_id = task
    else:
        request.inline_task.update(dict(inline_task))
    return request


def list_request(*, environment: str = "", method: str = "",
                 status: str | Sequence[str] = (), model: str = "", task: str = "",
                 run_id_prefix: str = "", page_size: int = 50, offset: int = 0,
                 facets: bool = False) -> pb.ListRunsRequest:
    """A ListRunsRequest; `status` is a short name ("solved", a RunStatus) or several;
    an unknown name is a ValueError that lists the names."""
    statuses = [status] if isinstance(status, str) else list(status)
    return pb.ListRunsRequest(
        environment=environment, method=method, statuses=[to_wire(parse(s)) for s in statuses],
        model=model, task=task, run_id_prefix=run_id_prefix, page_size=page_size,
        page_token=str(offset) if offset else "", include_facets=facets)
