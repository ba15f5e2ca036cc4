"""The conformance kit passes against the real Game-24 server, and can fail."""

from __future__ import annotations

import asyncio
import subprocess

import pytest
from lats_pb import environment_pb2

from env_servers.core import EnvironmentServicer, InvalidRequest, NotFound
from env_servers.core.snapshots import SnapshotCodec
from tests import kit
from tests.env.helpers import serving

# The grammar examples of game24 solve puzzle 4 4 6 8, so the kit plays real moves.
KIT_TASK = "game24/1076"


def kit_command(address: str, report, *pytest_args: str) -> list[str]:
    return kit.kit_command(address, report, *pytest_args, task_id=KIT_TASK)


@pytest.fixture(scope="module")
def game24_processes():
    args = ["env", "game24", "--session-ttl", "2", "--max-sessions", "64"]
    with kit.two_replicas("env", args, timeout=30) as replicas:
        yield replicas


@pytest.mark.timeout(120)
def test_game24_server_passes_the_whole_kit(game24_processes, tmp_path):
    results = kit.run_kit(game24_processes, tmp_path / "kit.xml", KIT_TASK,
                          process_timeout=110)
    assert kit.skipped(results) == sorted(
        ["test_inline_task_without_capability_is_failed_precondition",
         *kit.WITHOUT_SNAPSHOTS_ONLY, kit.STATES_ANSWER_KEYS])
    for must_run in ("test_idle_sessions_expire", "test_capacity_is_resource_exhausted",
                     "test_parallel_sessions_stay_independent", "test_forks_are_independent"):
        assert results[must_run] == "passed", must_run


class TrustingCodec(SnapshotCodec):
    """Broken on purpose: a blob that fails verification restores the last state."""

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


class SharesForks(EnvironmentServicer):
    """Broken on purpose: restoring the same blob twice yields the same session."""

    def __init__(self, domain, settings):
        super().__init__(domain, settings)
        self.forks: dict[bytes, str] = {}

    async def Restore(self, request, context):
        known = self.forks.get(request.blob)
        if known is not None:
            try:
                session = self.sessions.get(known)
                return environment_pb2.RestoreResponse(
                    session_id=known, observation=self.domain.observation_of(session.state))
            except NotFound:
                pass  # that session is gone: restore for real
        reply = await super().Restore(request, context)
        self.forks[request.blob] = reply.session_id
        return reply


class ReversesBatches(EnvironmentServicer):
    """Broken on purpose: a Transition's results come back in reverse order."""

    async def Transition(self, request, context):
        reply = await super().Transition(request, context)
        reversed_results = list(reply.results)[::-1]
        return environment_pb2.TransitionResponse(results=reversed_results)


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("broken", "selection", "expected_failures"),
    [
        (AcceptsTamperedBlobs, "damaged", {"test_damaged_blobs_are_invalid_argument",
                                           "test_score_of_a_damaged_blob_is_invalid_argument",
                                           "test_damaged_and_foreign_blobs_are_invalid_argument"}),
        (SharesForks, "forks or reproduces", {"test_forks_are_independent",
                                              "test_restore_reproduces_later_steps_exactly"}),
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
