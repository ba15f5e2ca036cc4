"""Requests to the planner, built from plain Python arguments.

A search's settings are SearchConfig's fields by name (planner.proto): a
mapping or a SearchConfig as `config`, then the shortcuts (`method`, `n`,
`k`, `depth`, `max_calls`, `max_tokens`), then any other field as a keyword
(`temperature=0.8`, `greedy_first=False`, ...). A name SearchConfig lacks is
a TypeError that lists the names it has; a value a field cannot hold (a
negative count, a word for a number) or a shortcut given as 0 (which the
protocol reads as "the method's default") is an InvalidSetting naming it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor

from lats_pb import planner_pb2 as pb

from lats_runtime.run_status import parse, to_wire

from lats_client.errors import InvalidSetting

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
        for name, value in dict(config).items():
            _set(message, name, value)
    _check_names(fields)
    for name, value in (("n", n), ("k", k), ("depth", depth)):
        if value is not None and not isinstance(value, bool) and value == 0:
            raise InvalidSetting(name, value, "give a count >= 1, or leave it out for the "
                                              "method's default")
    given = [(SHORTCUTS[name], value, name) for name, value in (("n", n), ("k", k), ("depth", depth))]
    given += [("method", method, "method"), *((name, value, name) for name, value in fields.items())]
    for name, value, shown in given:
        if value is not None:
            _set(message, name, value, shown)
    if max_calls is not None:
        _set(message.budget, "max_calls", max_calls, "max_calls")
    if max_tokens is not None:
        _set(message.budget, "max_total_tokens", max_tokens, "max_tokens")
    return message


_TAKES = {
    FieldDescriptor.CPPTYPE_UINT32: "a whole number >= 0", FieldDescriptor.CPPTYPE_UINT64:
    "a whole number >= 0", FieldDescriptor.CPPTYPE_INT32: "a whole number",
    FieldDescriptor.CPPTYPE_INT64: "a whole number", FieldDescriptor.CPPTYPE_FLOAT: "a number",
    FieldDescriptor.CPPTYPE_DOUBLE: "a number", FieldDescriptor.CPPTYPE_BOOL: "True or False",
    FieldDescriptor.CPPTYPE_STRING: "text", FieldDescriptor.CPPTYPE_MESSAGE: "a mapping of its fields",
}


def _set(message, name: str, value: Any, shown: str | None = None) -> None:
    """message.name = value, or an InvalidSetting naming the field (as `shown`) and what it takes."""
    field = message.DESCRIPTOR.fields_by_name[name]
    try:
        if field.message_type is not None:
            if isinstance(value, Mapping):
                json_format.ParseDict(dict(value), getattr(message, name))
            else:
                getattr(message, name).CopyFrom(value)
        else:
            setattr(message, name, value)
    except (ValueError, TypeError, json_format.ParseError) as error:
        takes = _TAKES.get(field.cpp_type, "a value of its type")
        raise InvalidSetting(shown or name, value, f"takes {takes} ({error})") from None


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
