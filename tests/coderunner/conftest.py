"""Shared fixtures of the code-runner tests."""

from __future__ import annotations

import gzip
import json

import pytest

from env_servers.coderunner import CodeRunnerConfig, CodeRunnerDomain
from env_servers.sandbox import RunRequest, RunResult, Sandbox, make_sandbox
from lats_runtime.resources import data_file


@pytest.fixture(scope="session")
def humaneval_records() -> dict[str, dict]:
    """The raw HumanEval records (with canonical solutions), by task id."""
    with gzip.open(data_file("HumanEval.jsonl.gz"), "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle]
    return {record["task_id"]: record for record in records}


def canonical_program(record: dict) -> str:
    return record["prompt"] + record["canonical_solution"]


class RecordingSandbox(Sandbox):
    """The real bubblewrap sandbox, keeping every request it was asked to run."""

    def __init__(self, inner: Sandbox):
        self.inner = inner
        self.name, self.secure = inner.name, inner.secure
        self.runs: list[RunRequest] = []

    async def run(self, request: RunRequest) -> RunResult:
        self.runs.append(request)
        return await self.inner.run(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


@pytest.fixture
async def sandbox():
    recording = RecordingSandbox(make_sandbox("bwrap"))
    yield recording
    await recording.aclose()


@pytest.fixture
def domain(sandbox) -> CodeRunnerDomain:
    return CodeRunnerDomain(CodeRunnerConfig(), sandbox=sandbox)


@pytest.fixture
def oracle_domain(sandbox) -> CodeRunnerDomain:
    return CodeRunnerDomain(CodeRunnerConfig(reward_mode="oracle"), sandbox=sandbox)
