"""What docs/protocol.md and docs/writing-an-environment.md tell an environment's
author, checked against the code that makes it true: the 4 MiB rule and the
kit agree; the kit's invalid-action failure quotes both observations; the
Python traps' inlined code works; the protoc command generates an importable
`lats_pb`; the health and reflection packages are the ones the kit calls; a
wheel built as the guide says carries what a plugin imports; the three Domain
API answers; and where the planner puts a pack's instructions."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import grpc
import pytest
from google.protobuf import struct_pb2

from env_servers.core.settings import EnvSettings
from env_servers.core.servicer import EnvironmentServicer
from env_servers.game24.domain import Game24Domain
from env_servers.openenv_app.calls import InProcessEnvironment
from lats.conformance import helpers as kit_helpers
from lats.conformance import test_service as kit_service
from lats.conformance import test_step as kit_step
from lats_pb import environment_pb2 as pb
from planner.prompting import PromptRenderer

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL = (ROOT / "docs" / "protocol.md").read_text()
GUIDE = (ROOT / "docs" / "writing-an-environment.md").read_text()


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    following = re.search(r"^#{2,3} ", text[start + len(heading):], re.M)
    return text[start:start + len(heading) + (following.start() if following else len(text))]


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_a_request_over_4_mib_must_be_refused_as_the_kit_requires():
    row = next(line for line in PROTOCOL.splitlines() if line.startswith("| `RESOURCE_EXHAUSTED`"))
    assert "a request over 4 MiB must be refused" in row and "may be refused" not in row
    assert kit_helpers.PROTOCOL_MAX_MESSAGE_BYTES == 4 * 1024 * 1024
    assert "must be refused" in kit_step.test_a_request_over_4_mib_is_refused_as_too_large.__doc__


class _CountingObservations:
    """An environment whose observations show a step counter (the mistake the docs warn of)."""

    def step_one(self, snapshot: pb.Snapshot, action: str) -> pb.StepResult:
        steps = int(snapshot.blob or b"0") + 1
        after = pb.Snapshot(blob=str(steps).encode())
        if action == kit_helpers.garbage_actions(1)[0]:
            return pb.StepResult(observation=f"step {steps}: not an action", invalid_action=True,
                                 steps=steps, snapshot=after)
        return pb.StepResult(observation=f"step {steps}: moved {action}", steps=steps,
                             snapshot=after)


def test_the_kit_quotes_both_observations_when_an_invalid_action_changes_the_state():
    rule = _flat(_section(PROTOCOL, "## Step"))
    assert "an observation that shows a step counter" in rule
    assert "an observation that shows a step counter" in _flat(GUIDE)
    with pytest.raises(AssertionError) as failure:
        kit_step.test_invalid_action_leaves_the_state_unchanged(
            _CountingObservations(), pb.Snapshot(blob=b"0"), ["north", "south"],
            pb.Limits(max_steps=10))
    message = str(failure.value)
    assert message.startswith("an invalid action changed the state")
    assert "before the invalid action: 'step 1: moved north'" in message
    assert "after it: 'step 2: moved north'" in message


def _python_blocks(section: str) -> list[str]:
    return [textwrap.dedent(block) for block in
            re.findall(r"```python\n(.*?)```", section, re.S)]


def test_the_python_traps_show_working_code_instead_of_pointing_into_the_source():
    traps = _section(PROTOCOL, "**Python (grpcio).**").split("**Node", 1)[0]
    assert "tests/bare_env" not in traps and "lats_runtime/" not in traps
    interceptor, finite = _python_blocks(traps)
    namespace: dict = {}
    exec(interceptor, namespace)   # noqa: S102 - the guide's own code
    exec(finite, namespace)        # noqa: S102

    def ping(request, context):
        return request

    handler = grpc.unary_unary_rpc_method_handler(
        ping, request_deserializer=pb.StepRequest.FromString,
        response_serializer=pb.StepRequest.SerializeToString)
    details = type("Details", (), {"method": "/lats.environment.v2.Environment/Step"})()
    tolerant = namespace["TolerantRequests"]().intercept_service(lambda _: handler, details)
    marker = tolerant.request_deserializer(b"\xff\xff\xff")
    assert isinstance(marker, namespace["Undecodable"])

    class Aborted(Exception):
        pass

    class Context:
        def abort(self, code, message):
            raise Aborted(code, message)

    with pytest.raises(Aborted) as aborted:
        tolerant.unary_unary(marker, Context())
    assert aborted.value.args[0] == grpc.StatusCode.INVALID_ARGUMENT
    well_formed = pb.StepRequest(actions=["a"])
    assert tolerant.request_deserializer(well_formed.SerializeToString()) == well_formed

    task = struct_pb2.Struct()
    task.update({"numbers": [1, 2, {"x": float("nan")}], "fine": 3})
    assert namespace["non_finite_at"](task) == "inline_task.numbers[2].x"
    task["numbers"][2]["x"] = 4
    assert namespace["non_finite_at"](task) is None


def _sh_commands(containing: str) -> list[str]:
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", GUIDE, re.S):
        for line in textwrap.dedent(block).replace("\\\n", " ").splitlines():
            command = line.split("#", 1)[0].strip()
            if containing in command:
                commands.append(command)
    assert commands, f"the guide shows no command with {containing!r}"
    return commands


def test_the_guides_protoc_command_generates_the_lats_pb_package(tmp_path):
    command, = _sh_commands("grpc_tools.protoc")
    (tmp_path / "gen").mkdir()
    shutil.copytree(ROOT / "protos" / "lats_pb", tmp_path / "protos" / "lats_pb",
                    ignore=shutil.ignore_patterns("*.py"))
    words = shlex.split(command)
    assert words[:3] == ["python", "-m", "grpc_tools.protoc"]
    done = subprocess.run([sys.executable, *words[1:]], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    program = ("from lats_pb import environment_pb2, environment_pb2_grpc; "
               "print(environment_pb2.__file__); "
               "print(environment_pb2_grpc.EnvironmentStub.__name__)")
    imported = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, text=True,
                              capture_output=True, timeout=60, env={"PYTHONPATH": "gen"})
    assert imported.returncode == 0, imported.stderr
    where, stub = imported.stdout.split()
    assert Path(where).is_relative_to(tmp_path / "gen" / "lats_pb") and stub == "EnvironmentStub"


def test_the_health_and_reflection_packages_named_are_the_ones_the_kit_calls():
    standard = _flat(_section(PROTOCOL, "## Deadlines and the standard services"))
    for name in ("grpc.health.v1", "grpc.reflection.v1alpha", "grpcio-health-checking",
                 "grpcio-reflection", "grpc_health.v1", "grpc_reflection.v1alpha"):
        assert name in standard, name
    assert "grpc.reflection.v1alpha" in _flat(GUIDE) and "grpc.health.v1" in _flat(GUIDE)
    assert kit_service.health_pb2.DESCRIPTOR.package == "grpc.health.v1"
    assert kit_service.reflection_pb2.DESCRIPTOR.package == "grpc.reflection.v1alpha"


@pytest.mark.timeout(180)
def test_a_wheel_built_as_the_guide_says_carries_what_a_plugin_imports(tmp_path):
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout")
    wheel_line, = _sh_commands("pip wheel")
    assert "--no-deps" in wheel_line and "git -C /path/to/lats archive HEAD" in GUIDE
    source = tmp_path / "lats-src"
    source.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "HEAD"], capture_output=True,
                             check=True, timeout=120).stdout
    subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True, timeout=120)
    # Offline: the build backend from this environment, not a fresh download.
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                            "--no-build-isolation", "-w", str(tmp_path / "wheels"), str(source)],
                           capture_output=True, text=True, timeout=170)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    wheel, = (tmp_path / "wheels").glob("lats_platform-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for module in ("env_servers/core/domain.py", "env_servers/core/servicer.py",
                   "lats_pb/environment_pb2.py", "lats_pb/environment_pb2_grpc.py",
                   "lats_runtime/__init__.py", "lats/conformance/plugin.py",
                   "lats_openenv/client.py"):
        assert module in names, module


@pytest.fixture
async def recorded_game24():
    """Game of 24 under the servicer, recording what its list_tasks and step receive."""
    received: dict[str, list] = {"splits": [], "actions": []}

    class Recording(Game24Domain):
        def list_tasks(self, split):
            received["splits"].append(split)
            return super().list_tasks(split)

        def step(self, state, action):
            received["actions"].append(action)
            return super().step(state, action)

    servicer = EnvironmentServicer(Recording(), EnvSettings(max_batch_actions=3))
    yield InProcessEnvironment(servicer), received
    await servicer.close()


async def test_the_domain_api_answers_hold(recorded_game24):
    calls, received = recorded_game24
    described = await calls.call("Describe", pb.DescribeRequest())
    await calls.call("ListTasks", pb.ListTasksRequest(split=""))
    assert received["splits"] == [described.splits[0]]
    reset = await calls.call("Reset", pb.ResetRequest(task_id="game24/900"))
    sent = "  6 * 5 = 30 (left: 4 10 30)\n"
    await calls.call("Step", pb.StepRequest(snapshot=reset.snapshot, actions=[sent]))
    assert received["actions"] == [sent]
    assert described.limits.max_batch_actions == 3

    answers = _flat(GUIDE)
    assert "`list_tasks(split)` never gets `\"\"`." in answers
    assert "Actions arrive as the client sent them: not stripped." in answers
    assert "`lats serve env NAME --max-batch-actions N` (or `LATS_MAX_BATCH_ACTIONS`" in answers
    assert f"default {EnvSettings().max_batch_actions};" in answers


def test_the_planner_sends_instructions_as_the_system_message_and_again_for_the_placeholder():
    pack = pb.PromptPack(instructions="Reach 24.", act_template="{instructions}\n{task}\n"
                         "{trajectory}Step {step}:", value_template="{task}\n{trajectory}",
                         reflect_template="{trajectory}", step_template="{action}",
                         value_pattern=r"(\d+)")
    messages = PromptRenderer(pack=pack, task="4 5 6 10").act(_Root(), [])
    assert messages[0] == ("system", "Reach 24.")
    assert messages[-1][0] == "user" and messages[-1][1].startswith("Reach 24.\n4 5 6 10")
    documented = _flat(_section(PROTOCOL, "### The prompt pack"))
    assert "sends them twice in one prompt" in documented
    assert "`instructions` as the system message of every prompt" in documented


class _Root:
    """A search tree's root: no steps yet."""

    depth = 0

    def trajectory(self):
        return []
