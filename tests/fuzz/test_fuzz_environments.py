"""Every Environment RPC of every environment server, fuzzed as real processes.

Game of 24, the code runner (bubblewrap sandbox), HotpotQA, WebShop, the
TypeScript sliding puzzle, the bare grpcio word ladder, a TextArena game and the
OpenEnv bridge (in front of the GridWalk OpenEnv server of tests/openenv) each
get, per RPC, requests generated from the proto descriptors (with real task
ids, actions, and valid or tampered snapshots mixed in, so draws get past the
first check) and raw random bytes. Every
answer must be OK or a documented status with a short message
(tests/fuzz/harness.py); afterwards the server is still SERVING and its
memory grew by less than MAX_RSS_GROWTH.
"""

from __future__ import annotations

import contextlib
import os

import grpc
import pytest
from hypothesis import given
from hypothesis import strategies as st
from lats_pb import environment_pb2, environment_pb2_grpc

from lats_runtime.processes import start_service
from tests.bare_env.test_word_ladder import start_bare_server
from tests.env_ts.test_sliding_puzzle_ts import PACKAGE, start_node_server
from tests.fuzz import harness
from tests.fuzz.strategies import message_of, texts
from tests.openenv.servers import gridwalk_server

SERVICE = environment_pb2.DESCRIPTOR.services_by_name["Environment"]
METHODS = [method.name for method in SERVICE.methods]
MAX_RSS_GROWTH = 150 * 1024 * 1024
SERVERS = {
    "game24": (["env", "game24"], {}),
    "coderunner": (["env", "coderunner"], {"LATS_CODERUNNER_SANDBOX": "bwrap"}),
    "hotpotqa": (["env", "hotpotqa"], {}),
    "webshop": (["env", "webshop"], {}),
    "sliding_puzzle": (None, {}),       # the TypeScript server
    "word_ladder": (None, {}),          # the bare grpcio server (tests/bare_env)
    "textarena": (["env", "textarena", "--game", "GuessTheNumber-v0"], {}),
    "openenv": (["env", "openenv", "--url", "{gridwalk}"], {}),   # GridWalk, started first
}
COMMON_ARGS = ["--snapshot-key", "fuzz"]


def _start(name: str, stack: contextlib.ExitStack):
    args, env = SERVERS[name]
    if name == "word_ladder":
        return start_bare_server(name)
    if args is not None and "{gridwalk}" in args:
        url = stack.enter_context(gridwalk_server()) + "/steady"
        args = [arg.replace("{gridwalk}", url) for arg in args]
    if args is None:
        assert (PACKAGE / "dist" / "main.js").exists(), "run `make setup` (builds the TS server)"
        return start_node_server(PACKAGE / "dist" / "main.js", name, *COMMON_ARGS)
    if name == "webshop":
        for variable in ("LATS_WEBSHOP_DATA", "LATS_WEBSHOP_GOALS", "LATS_WEBSHOP_SEED"):
            os.environ.pop(variable, None)
    return start_service(name, [*args, *COMMON_ARGS], env=env, timeout=180)


def _live_material(stub) -> dict:
    """Real task ids, snapshots, blobs and actions of the server, for the hints."""
    describe = stub.Describe(environment_pb2.DescribeRequest(), timeout=30)
    tasks = list(stub.ListTasks(environment_pb2.ListTasksRequest(page_size=10), timeout=30).task_ids)
    examples = list(describe.action_grammar.examples) or ["look"]
    snapshots = [stub.Reset(environment_pb2.ResetRequest(task_id=task), timeout=60).snapshot
                 for task in tasks[:3]]
    after = stub.Step(environment_pb2.StepRequest(snapshot=snapshots[0], actions=examples[:2]),
                      timeout=60).results
    snapshots += [result.snapshot for result in after]
    blobs = [snapshot.blob for snapshot in snapshots if snapshot.blob]
    for blob in blobs[:2]:
        tampered = bytearray(blob)
        tampered[-1] ^= 1
        snapshots.append(environment_pb2.Snapshot(blob=bytes(tampered)))
    return {"splits": list(describe.splits), "tasks": tasks, "snapshots": snapshots,
            "blobs": blobs or [b""], "actions": examples}


def _hints(live: dict) -> dict:
    either = lambda real: st.one_of(st.sampled_from(real), texts)  # noqa: E731
    return {
        "task_id": either(live["tasks"]), "split": either(live["splits"]),
        "actions": either(live["actions"]),
        "blob": st.one_of(st.sampled_from(live["blobs"]), st.binary(max_size=200)),
        "snapshot": st.one_of(st.sampled_from(live["snapshots"]),
                              message_of(environment_pb2.Snapshot.DESCRIPTOR,
                                         {"task_id": either(live["tasks"]),
                                          "actions": either(live["actions"])}, depth=1)),
    }


@pytest.fixture(scope="module", params=list(SERVERS))
def server(request):
    stack = contextlib.ExitStack()
    with stack:
        yield from _serve(request.param, stack)


def _serve(name: str, stack: contextlib.ExitStack):
    service = _start(name, stack)
    channel = grpc.insecure_channel(service.address)
    try:
        live = _live_material(environment_pb2_grpc.EnvironmentStub(channel))
        before = harness.rss_bytes(service.process.pid)
        yield channel, _hints(live)
        harness.assert_serving(channel)
        growth = harness.rss_bytes(service.process.pid) - before
        assert growth < MAX_RSS_GROWTH, f"{name} grew by {growth / 2**20:.0f} MiB"
    finally:
        channel.close()
        assert service.stop(timeout=20) == 0, service.log_tail()


@pytest.mark.timeout(600)
@pytest.mark.parametrize("method_name", METHODS)
def test_generated_requests_get_documented_answers(server, method_name):
    channel, hints = server
    method = SERVICE.methods_by_name[method_name]

    @given(message_of(method.input_type, hints))
    def fuzz(request):
        harness.call(channel, method, request)

    fuzz()
    harness.assert_serving(channel)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("method_name", METHODS)
def test_raw_bytes_get_documented_answers(server, method_name):
    channel, _ = server
    method = SERVICE.methods_by_name[method_name]

    @given(st.binary(max_size=200))
    def fuzz(data):
        harness.call_raw_checked(channel, method, data, data, harness.DOCUMENTED)

    fuzz()
