"""Logging set-up shared by every command and server.

Two formats, one record per line on stderr:
  text  `TIME LEVEL LOGGER: MESSAGE [run=ID]` for people;
  json  one JSON object per line (python-json-logger) for log pipelines, with
        `time` (RFC 3339, UTC), `level`, `logger`, `message`, `service`,
        `run_id` when the record belongs to a run, any `extra` fields a caller
        passed (e.g. `rpc`, `code`, `duration_ms`) and `exc_info` for errors.
The run id is the current one (`lats_runtime.run_context`), so lines logged
while serving a call of a run name it in every service. `set_service` names
the service a process runs (servers call it when they start).
"""

from __future__ import annotations

import datetime
import logging

from pythonjsonlogger.json import JsonFormatter

from lats_runtime.run_context import current_run_id

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
LOG_FORMATS = ("text", "json")
_service = ""


def set_service(name: str) -> None:
    """Names the service this process runs, for every later record."""
    global _service
    _service = name


class _ContextFilter(logging.Filter):
    """Adds `run_id` and `service` to each record (a caller's `extra` wins)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "run_id", ""):
            record.run_id = current_run_id()
        if not getattr(record, "service", ""):
            record.service = _service
        return True


class _TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        return f"{text} [run={record.run_id}]" if getattr(record, "run_id", "") else text


class _JsonLinesFormatter(JsonFormatter):
    def __init__(self) -> None:
        super().__init__("{asctime}{levelname}{name}{message}{service}{run_id}", style="{",
                         rename_fields={"asctime": "time", "levelname": "level",
                                        "name": "logger"})

    def formatTime(self, record, datefmt=None) -> str:  # noqa: N802 - logging's name
        moment = datetime.datetime.fromtimestamp(record.created, datetime.timezone.utc)
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def process_log_record(self, log_record: dict) -> dict:
        for key in ("run_id", "service"):
            if not log_record.get(key):
                log_record.pop(key, None)
        return log_record


def configure_logging(level: str = "INFO", fmt: str = "text") -> None:
    """Root logging at `level` (a name such as INFO) in `fmt` ("text" or "json").

    Replaces only a handler an earlier call installed, so handlers others added
    (e.g. a test runner's) keep working.
    """
    if fmt not in LOG_FORMATS:
        raise ValueError(f"unknown log format {fmt!r}; use one of {', '.join(LOG_FORMATS)}")
    handler = logging.StreamHandler()
    handler.addFilter(_ContextFilter())
    handler.setFormatter(_JsonLinesFormatter() if fmt == "json" else _TextFormatter(TEXT_FORMAT))
    handler._lats_handler = True   # noqa: SLF001 - marks the handler as ours
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "_lats_handler", False)]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
