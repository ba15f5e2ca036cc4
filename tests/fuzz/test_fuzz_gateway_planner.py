"""Every LlmGateway and Planner RPC, fuzzed as real processes.

A scripted gateway and a planner (with a Game-of-24 server to search) get, per
RPC, requests generated from the proto descriptors (real run ids, task ids,
method names and the real environment address mixed in) and raw random bytes.
Every answer must be OK or a documented status with a short message
(tests/fuzz/harness.py); afterwards each service is still SERVING and its
memory grew by less than MAX_RSS_GROWTH. Solve streams are read for a few
events and cancelled.
"""

from __future__ import annotations

import json

import grpc
import pytest
from hypothesis import given
from hypothesis import strategies as st
from lats_pb import llm_pb2, planner_pb2, planner_pb2_grpc

from lats_runtime.processes import running_services
from planner.methods.registry import METHODS as SEARCH_METHODS
from tests.fuzz import harness
from tests.fuzz.strategies import message_of, texts

GATEWAY = llm_pb2.DESCRIPTOR.services_by_name["LlmGateway"]
PLANNER = planner_pb2.DESCRIPTOR.services_by_name["Planner"]
MAX_RSS_GROWTH = 150 * 1024 * 1024
TASKS = [f"game24/{n}" for n in range(900, 910)]


@pytest.fixture(scope="module")
def services(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    script = folder / "script.json"
    script.write_text(json.dumps({"rules": [], "default": "4 + 4 = 8 (left: 6 8 8)"}))
    specs = [
        ("env", ["env", "game24"]),
        ("gateway", ["gateway", "--backend", "scripted", "--script", str(script)]),
        ("planner", ["planner", "--gateway", "{gateway}", "--db", str(folder / "runs.sqlite3"),
                     "--max-runs", "4"]),
    ]
    with running_services(specs) as running:
        channels = {name: grpc.insecure_channel(running[name].address)
                    for name in ("gateway", "planner")}
        solve = planner_pb2_grpc.PlannerStub(channels["planner"]).Solve(planner_pb2.SolveRequest(
            env_address=running["env"].address, task_id=TASKS[0],
            config=planner_pb2.SearchConfig(iterations=1, n_samples=1)), timeout=60)
        run_ids = sorted({event.run_id for event in solve})
        before = {name: harness.rss_bytes(running[name].process.pid) for name in channels}
        yield running, channels, run_ids
        for name, channel in channels.items():
            harness.assert_serving(channel)
            growth = harness.rss_bytes(running[name].process.pid) - before[name]
            assert growth < MAX_RSS_GROWTH, f"{name} grew by {growth / 2**20:.0f} MiB"
            channel.close()


def _target(channels, path: str):
    """The method named "Service/Method" and the channel of the service that serves it."""
    service_name, method_name = path.split("/")
    service = GATEWAY if service_name == GATEWAY.name else PLANNER
    channel = channels["gateway" if service is GATEWAY else "planner"]
    return service.methods_by_name[method_name], channel


def _hints(running, run_ids) -> dict:
    either = lambda real: st.one_of(st.sampled_from(real), texts)  # noqa: E731
    small = st.integers(0, 3)
    return {
        "run_id": either(run_ids), "task_id": either(TASKS),
        "env_address": st.one_of(st.just(running["env"].address), st.just(running["env"].address),
                                 st.sampled_from(["", "127.0.0.1:1", "not an address"])),
        "method": either([*SEARCH_METHODS, ""]),
        "iterations": small, "n_samples": small, "max_depth": small, "value_samples": small,
        "max_calls": small, "parallel": small,
        "fallback_env_address": st.sampled_from(["", running["env"].address]),
    }


@pytest.mark.timeout(600)
@pytest.mark.parametrize("path", [f"{s.name}/{m.name}" for s in (GATEWAY, PLANNER)
                                  for m in s.methods])
def test_generated_requests_get_documented_answers(services, path):
    running, channels, run_ids = services
    method, channel = _target(channels, path)
    documented = (harness.DOCUMENTED if method.containing_service is GATEWAY
                  else harness.PLANNER_DOCUMENTED)

    @given(message_of(method.input_type, _hints(running, run_ids)))
    def fuzz(request):
        harness.call(channel, method, request, documented)

    fuzz()
    harness.assert_serving(channel)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("path", [f"{s.name}/{m.name}" for s in (GATEWAY, PLANNER)
                                  for m in s.methods])
def test_raw_bytes_get_documented_answers(services, path):
    method, channel = _target(services[1], path)

    @given(st.binary(max_size=200))
    def fuzz(data):
        harness.call_raw_checked(channel, method, data, data, harness.PLANNER_DOCUMENTED)

    fuzz()
