"""The conformance kit passes against the real Game-24 server, and can fail."""

from __future__ import annotations

import asyncio
import subprocess

import pytest
from lats_pb import environment_pb2

from env_servers.core import EnvironmentServicer, InvalidRequest
from env_servers.core.snapshots import SnapshotCodec
from tests import kit
from tests.env.helpers import serving

# The grammar examples of game24 solve puzzle 4 4 6 8, so the kit plays real moves.
KIT_TASK = "game24/1076"


def kit_command(address: str, report, *pytest_args: str) -> list[str]:
    return kit.kit_command(address, report, *pytest_args, task_id=KIT_TASK)


@pytest.fixture(scope="module")
def game24_processes():
    with kit.two_replicas("env", ["env", "game24"], timeout=30) as replicas:
        yield replicas


@pytest.mark.timeout(120)
def test_game24_server_passes_the_whole_kit(game24_processes, tmp_path):
    results = kit.run_kit(game24_processes, tmp_path / "kit.xml", KIT_TASK,
                          process_timeout=110)
    assert kit.skipped(results) == sorted(
        ["test_inline_task_without_capability_is_failed_precondition", kit.STATES_ANSWER_KEYS, kit.STATES_STATE_KEYS,
         *kit.REPLAY_ONLY])
    for must_run in ("test_branches_are_independent", "test_damaged_blobs_are_invalid_argument",
                     "test_a_retired_version_is_told_which_version_this_is[Describe-lats.v1.Environment]",
                     "test_non_finite_inline_task_is_invalid_argument[nan]"):
        assert results[must_run] == "passed", must_run


class TrustingCodec(SnapshotCodec):
    """Broken on purpose: a blob that fails verification stands for the last state made."""

    last = None

    def encode(self, payload):
        self.last = payload
        return super().encode(payload)

    def decode(self, blob):
        try:
            return super().decode(blob)
        except InvalidRequest:
            if self.last is None:
                raise
            return self.last


class AcceptsTamperedBlobs(EnvironmentServicer):
    def __init__(self, domain, settings):
        super().__init__(domain, settings)
        self.codec = TrustingCodec(b"key", domain.name, domain.version)


class RemembersTheLastState(EnvironmentServicer):
    """Broken on purpose, a session in disguise: a Step continues the last state this
    process made, whatever snapshot it is given."""

    last = None

    async def _point_of(self, request, method):
        point = await super()._point_of(request, method)
        return self.last if self.last is not None and method == "Step" else point

    def _next(self, before, after, action):
        point = super()._next(before, after, action)
        self.last = point
        return point


class ReversesBatches(EnvironmentServicer):
    """Broken on purpose: a Step's results come back in reverse order."""

    async def Step(self, request, context):
        reply = await super().Step(request, context)
        return environment_pb2.StepResponse(results=list(reply.results)[::-1])


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("broken", "selection", "expected_failures"),
    [
        (AcceptsTamperedBlobs, "damaged", {"test_damaged_blobs_are_invalid_argument",
                                           "test_score_of_a_damaged_blob_is_invalid_argument"}),
        (RemembersTheLastState, "reproduces or branches",
         {"test_branches_are_independent", "test_a_snapshot_reproduces_later_steps_exactly"}),
        (ReversesBatches, "batch", {"test_batch_results_keep_request_order"}),
    ],
)
async def test_the_kit_catches_a_broken_server(game24, tmp_path, broken, selection,
                                               expected_failures):
    report = tmp_path / "kit.xml"
    async with serving(game24, servicer_class=broken) as env:
        process = await asyncio.create_subprocess_exec(
            *kit_command(env.address, report, "-k", selection),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        output, _ = await asyncio.wait_for(process.communicate(), 50)
    assert process.returncode == 1, output.decode()[-4000:]
    failed = {name for name, outcome in kit.kit_results(report).items() if outcome == "failed"}
    assert failed == expected_failures, output.decode()[-4000:]
