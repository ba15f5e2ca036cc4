"""The run id's scope and header, and the two log formats."""

from __future__ import annotations

import asyncio
import io
import json
import logging

import pytest

from lats_runtime import logs
from lats_runtime.run_context import (RUN_ID_METADATA_KEY, current_run_id, run_id_from,
                                      run_scope, with_run_id)


def test_the_scope_sets_and_restores_the_run_and_tasks_inherit_it():
    assert current_run_id() == ""
    with run_scope("run-1"):
        assert current_run_id() == "run-1"
        assert with_run_id(None) == ((RUN_ID_METADATA_KEY, "run-1"),)
        assert with_run_id([("x", "1")]) == (("x", "1"), (RUN_ID_METADATA_KEY, "run-1"))
        # A header the caller set wins.
        assert with_run_id([(RUN_ID_METADATA_KEY, "other")]) == ((RUN_ID_METADATA_KEY, "other"),)

        async def child():
            return current_run_id()

        assert asyncio.run(child()) == "run-1"
    assert current_run_id() == "" and with_run_id(None) is None


@pytest.mark.parametrize("value, accepted", [
    ("3fa2c0ffee", "3fa2c0ffee"), ("run:1.a-b_c", "run:1.a-b_c"), ("x" * 128, "x" * 128),
    ("x" * 129, ""), ("a b", ""), ("a\nb", ""), ("", ""), ("é", ""),
])
def test_only_plain_run_ids_from_callers_are_taken(value, accepted):
    assert run_id_from([("user-agent", "x"), (RUN_ID_METADATA_KEY, value)]) == accepted
    with run_scope(value):
        assert current_run_id() == accepted


@pytest.fixture
def captured():
    stream = io.StringIO()

    def configure(fmt):
        logs.configure_logging("INFO", fmt)
        ours = [h for h in logging.getLogger().handlers if getattr(h, "_lats_handler", False)]
        assert len(ours) == 1            # configuring again replaces, never stacks
        ours[0].setStream(stream)
        return stream

    yield configure
    for handler in [h for h in logging.getLogger().handlers
                    if getattr(h, "_lats_handler", False)]:
        logging.getLogger().removeHandler(handler)
    logs.set_service("")


def test_json_lines_carry_the_service_the_run_and_extras(captured):
    stream = captured("json")
    logs.set_service("planner")
    log = logging.getLogger("tests.logs")
    with run_scope("run-7"):
        log.info("hello %s", "world", extra={"rpc": "/lats.v1.Planner/Solve"})
    try:
        raise ValueError("boom")
    except ValueError:
        log.exception("failed")
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    assert first["message"] == "hello world" and first["level"] == "INFO"
    assert first["run_id"] == "run-7" and first["service"] == "planner"
    assert first["rpc"] == "/lats.v1.Planner/Solve" and first["time"].endswith("Z")
    assert "run_id" not in second and "ValueError: boom" in second["exc_info"]


def test_text_lines_name_the_run_at_the_end(captured):
    stream = captured("text")
    with run_scope("run-8"):
        logging.getLogger("tests.logs").warning("slow")
    assert stream.getvalue().rstrip().endswith("WARNING tests.logs: slow [run=run-8]")


def test_an_unknown_format_is_refused():
    with pytest.raises(ValueError, match="use one of text, json"):
        logs.configure_logging("INFO", "xml")
