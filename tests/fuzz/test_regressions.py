"""The fuzzing pass's findings, each pinned as a regression test on real processes.

1. Undecodable request bytes: INVALID_ARGUMENT (was UNKNOWN) on every service.
2. NaN/Infinity in an inline task: INVALID_ARGUMENT (was INTERNAL, or a run error
   through the planner).
3. A blob signed with the server's own key but holding a malformed state or
   envelope: INVALID_ARGUMENT (was INTERNAL: KeyError, "Value out of range").
4. Long input in errors is quoted short (was echoed in full, so the client saw
   RESOURCE_EXHAUSTED "metadata size exceeds limit").
5. SearchConfig out of range, or beyond the gateway's published sample limit:
   INVALID_ARGUMENT up front naming the field (was accepted, then failed mid-run).
6. Run ids longer than 128 characters: INVALID_ARGUMENT at the gateway (its
   usage ledger grew without bound).
"""

from __future__ import annotations

import json
import math

import grpc
import pytest
from google.protobuf import struct_pb2
from lats_pb import (environment_pb2, environment_pb2_grpc, llm_pb2, llm_pb2_grpc, planner_pb2,
                     planner_pb2_grpc)

from env_servers.core.snapshots import SnapshotCodec, SnapshotPayload
from lats_runtime.processes import running_services

KEY = "regression-key"
LONG = "z" * 16_384


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    folder = tmp_path_factory.mktemp("regressions")
    script = folder / "script.json"
    script.write_text(json.dumps({"rules": [], "default": "4 + 4 = 8 (left: 6 8 8)"}))
    specs = [("env", ["env", "game24", "--snapshot-key", KEY]),
             ("gateway", ["gateway", "--backend", "scripted", "--script", str(script)]),
             ("planner", ["planner", "--gateway", "{gateway}",
                          "--db", str(folder / "runs.sqlite3")])]
    with running_services(specs) as running:
        channels = {name: grpc.insecure_channel(running[name].address) for name in running}
        yield running, channels
        for channel in channels.values():
            channel.close()


def _status(call, *args, **kwargs) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        result = call(*args, timeout=30, **kwargs)
        list(result) if hasattr(result, "__iter__") and not hasattr(result, "ByteSize") else None
    return caught.value


@pytest.mark.parametrize("service,path,streaming", [
    ("env", "/lats.environment.v2.Environment/Step", False),
    ("gateway", "/lats.v1.LlmGateway/Generate", False),
    ("planner", "/lats.v1.Planner/GetRun", False),
    ("planner", "/lats.v1.Planner/Solve", True),
])
def test_undecodable_bytes_are_invalid_argument(stack, service, path, streaming):
    channel = stack[1][service]
    call = (channel.unary_stream if streaming else channel.unary_unary)(path)
    error = _status(call, b"\xff\xff\xff\xff\x0f")
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error.details()
    assert path in error.details()


def _nan_task() -> struct_pb2.Struct:
    task = struct_pb2.Struct()
    task.fields["numbers"].list_value.values.add().number_value = math.nan
    return task


def test_non_finite_inline_tasks_are_invalid_argument(stack):
    running, channels = stack
    env = environment_pb2_grpc.EnvironmentStub(channels["env"])
    error = _status(env.Reset, environment_pb2.ResetRequest(inline_task=_nan_task()))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and "numbers[0]" in error.details()
    planner = planner_pb2_grpc.PlannerStub(channels["planner"])
    error = _status(planner.Solve, planner_pb2.SolveRequest(
        env_address=running["env"].address, inline_task=_nan_task()))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and "finite" in error.details()


@pytest.mark.parametrize("state,steps", [
    ({"numbers": ["1", "2", "3", "4"]}, 0),                               # no "observation"
    ({"numbers": "1 2 3 4", "left": 7, "steps": None, "observation": "x"}, 0),  # wrong types
    ({"numbers": ["4", "6", "1", "1"], "left": ["4", "6", "1", "1"], "steps": [],
      "observation": "x"}, -4),                                          # negative step count
])
def test_well_signed_malformed_blobs_are_invalid_argument(stack, state, steps):
    env = environment_pb2_grpc.EnvironmentStub(stack[1]["env"])
    described = env.Describe(environment_pb2.DescribeRequest(), timeout=30)
    blob = SnapshotCodec(KEY.encode(), described.name, described.version).encode(
        SnapshotPayload(state, steps, False))
    snapshot = environment_pb2.Snapshot(blob=blob)
    for call, request in [
        (env.Step, environment_pb2.StepRequest(snapshot=snapshot, actions=["4 + 6 = 10"])),
        (env.Score, environment_pb2.ScoreRequest(snapshot=snapshot)),
    ]:
        error = _status(call, request)
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, (call, error.details())


def test_long_input_is_quoted_short(stack):
    _, channels = stack
    env = environment_pb2_grpc.EnvironmentStub(channels["env"])
    planner = planner_pb2_grpc.PlannerStub(channels["planner"])
    for error in (
        _status(env.ListTasks, environment_pb2.ListTasksRequest(split=LONG)),
        _status(env.Reset, environment_pb2.ResetRequest(task_id="game24/900", options={LONG: "1"})),
        _status(planner.GetRun, planner_pb2.GetRunRequest(run_id=LONG)),
    ):
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error.details()
        assert len(error.details()) < 1_000


@pytest.mark.parametrize("config,field", [
    (planner_pb2.SearchConfig(exploration_weight=math.nan), "exploration_weight"),
    (planner_pb2.SearchConfig(exploration_weight=math.inf), "exploration_weight"),
    (planner_pb2.SearchConfig(value_samples=2**32 - 1), "value_samples"),
    (planner_pb2.SearchConfig(n_samples=64), "n_samples"),          # the gateway allows 16
    (planner_pb2.SearchConfig(value_samples=20), "value_samples"),
])
def test_search_configs_are_checked_up_front(stack, config, field):
    running, channels = stack
    planner = planner_pb2_grpc.PlannerStub(channels["planner"])
    error = _status(planner.Solve, planner_pb2.SolveRequest(
        env_address=running["env"].address, task_id="game24/900", config=config))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error.details()
    assert field in error.details()


def test_the_gateway_publishes_its_sample_limit_and_bounds_run_ids(stack):
    gateway = llm_pb2_grpc.LlmGatewayStub(stack[1]["gateway"])
    assert gateway.DescribeBackend(llm_pb2.DescribeBackendRequest(), timeout=30).max_samples == 16
    request = llm_pb2.GenerateRequest(run_id="r" * 1_000_000,
                                      messages=[llm_pb2.ChatMessage(role="user", content="hi")])
    error = _status(gateway.Generate, request)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and "run_id" in error.details()
    assert len(error.details()) < 1_000
    error = _status(gateway.GetUsage, llm_pb2.GetUsageRequest(run_id="r" * 200))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
