"""Run statuses: one Python enum, the same strings as before, and the wire enum both ways."""

import json

import pytest

from lats_pb import planner_pb2 as pb
from lats_runtime.run_status import NAMED, RunStatus, from_wire, parse, to_wire


def test_every_wire_status_has_a_member_and_comes_back_unchanged():
    for name, value in pb.RunStatus.items():
        status = from_wire(value)
        assert status.name == name.removeprefix("RUN_STATUS_")
        assert to_wire(status) == value


def test_the_values_are_the_short_names_that_records_store_and_print():
    assert [str(status) for status in NAMED] == ["running", "solved", "failed", "error",
                                                 "interrupted", "cancelled"]
    assert RunStatus.SOLVED == "solved" and f"{RunStatus.ERROR}" == "error"
    assert json.dumps({"status": RunStatus.FAILED}) == '{"status": "failed"}'
    assert RunStatus("interrupted") is RunStatus.INTERRUPTED


def test_a_value_this_build_does_not_know_reads_as_unspecified():
    assert from_wire(0) is RunStatus.UNSPECIFIED
    assert from_wire(max(pb.RunStatus.values()) + 1) is RunStatus.UNSPECIFIED


def test_only_running_and_unspecified_are_not_ended():
    assert [s for s in RunStatus if not s.ended] == [RunStatus.UNSPECIFIED, RunStatus.RUNNING]


@pytest.mark.parametrize("name", ["unspecified", "SOLVED", "done", ""])
def test_parse_names_the_statuses_a_query_may_use(name):
    with pytest.raises(ValueError, match="use one of cancelled, error, failed, interrupted, running, solved"):
        parse(name)
    assert parse("solved") is RunStatus.SOLVED
