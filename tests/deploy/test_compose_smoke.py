"""deploy/compose.yaml for real: the stack up in real containers, `lats bench` on all
four environments through it, one environment and one planner container killed
mid-bench, every job finished with nothing lost; then everything torn down.

The gateway is the compose file's, with a scripted model (and a little latency,
so searches are in flight when the containers die); everything else runs as a
user runs it.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import time
from pathlib import Path

import docker
import pytest

from tests.deploy.compose import compose
from tests.deploy.images import IMAGE, POSTGRES_IMAGE

PROGRAM = ("```python\nfrom typing import List\n\n"
           "def has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
           "    return any(abs(a - b) < threshold\n"
           "               for i, a in enumerate(numbers) for b in numbers[i + 1:])\n```")
SCRIPT = {
    "rules": [
        {"name": "value", "purpose": "value", "responses": ["Thus the correctness score is 5"]},
        {"name": "reflect", "purpose": "reflect", "responses": ["Try another approach."]},
        {"name": "program", "contains": ["def "], "responses": [PROGRAM]},
        {"name": "shop", "contains": ["WebShop"],
         "responses": ["search[gluten free vegetarian bacon]", "click[Next >]"]},
        {"name": "wiki", "contains": ["Finish["],
         "responses": ["Thought: Both are American.\nAction 1: Finish[yes]"]},
    ],
    "default": "1 + 1 = 2 (left: 2)",
}
# (environment, its tasks): every environment, every job must come back.
BENCHES = {
    "game24": ["--slice", "0:8"],
    "coderunner": ["--task", "HumanEval/0", "--task", "HumanEval/1", "--task", "HumanEval/2"],
    "hotpotqa": ["--slice", "0:4"],
    "webshop": ["--slice", "0:3"],
}
JOBS = {"game24": 8, "coderunner": 3, "hotpotqa": 4, "webshop": 3}


def _override(folder: Path) -> Path:
    """The test's changes to the compose file: the scripted model, the bench output."""
    (folder / "model").mkdir(mode=0o755)
    script = folder / "model" / "script.json"
    script.write_text(json.dumps(SCRIPT))
    script.chmod(0o644)
    out = folder / "out"
    out.mkdir()
    out.chmod(0o777)  # the containers write as uid 10001
    override = folder / "override.yaml"
    override.write_text(json.dumps({"services": {
        "gateway": {
            "image": IMAGE,
            "command": ["serve", "gateway", "--port", "50052", "--backend", "scripted",
                        "--script", "/model/script.json", "--latency", "0.15"],
            "volumes": [f"{folder / 'model'}:/model:ro"],
        },
        "lats": {"volumes": [f"{out}:/out"]},
    }}))
    return override


def _records(database: Path) -> list[dict]:
    """The bench's stored records (lats.method_comparison.store's table), [] until it exists."""
    if not database.is_file():
        return []
    try:
        connection = sqlite3.connect(database, timeout=1)
        try:
            return [json.loads(row[0]) for row in connection.execute("SELECT record FROM results")]
        finally:
            connection.close()
    except sqlite3.Error:
        return []


@pytest.mark.timeout(900)
def test_bench_through_the_compose_stack_survives_killed_containers(deploy_engine, tmp_path):
    project = f"lats-smoke-{os.getpid()}"
    env = {"DOCKER_HOST": deploy_engine, "LATS_IMAGE": IMAGE,
           "LATS_POSTGRES_IMAGE": POSTGRES_IMAGE, "LATS_HEALTH_INTERVAL": "3s"}
    files = (Path("deploy/compose.yaml"), _override(tmp_path))

    def run(*args, **kwargs):
        return compose(*args, env=env, project=project, files=files, **kwargs)

    started = time.monotonic()
    try:
        run("up", "--detach", "--no-build", "--wait", "--wait-timeout", "300", timeout=400)
        up_seconds = time.monotonic() - started
        benches = {
            name: subprocess.Popen(
                [*_compose_command(project, files), "run", "--rm", "--no-deps", "-T", "lats",
                 "--log-level", "WARNING", "bench", "--planner", "dns:///planner:50053",
                 "--env", f"dns:///{name}:50051", *tasks, "-k", "3", "-n", "2",
                 "--timeout", "300", "--out", f"/out/{name}"],
                cwd=_root(), env={**os.environ, **env}, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, text=True)
            for name, tasks in BENCHES.items()}
        first = tmp_path / "out" / "game24" / "bench.sqlite3"
        deadline = time.monotonic() + 240
        while not _records(first) and time.monotonic() < deadline:
            if benches["game24"].poll() is not None:     # other benches may finish first
                break
            time.sleep(0.2)
        if not _records(first):
            for bench in benches.values():
                bench.kill()
            details = {name: bench.communicate()[0][-1500:] for name, bench in benches.items()}
            raise AssertionError(f"no game24 job finished: {details}")
        # Mid-bench: one environment replica and one planner die without warning.
        assert len(_records(first)) < JOBS["game24"], "the game24 bench ended before the kills"
        engine = docker.DockerClient(base_url=deploy_engine)
        for victim in (f"{project}-game24-1", f"{project}-planner-1"):
            engine.containers.get(victim).kill("SIGKILL")
        engine.close()
        outputs = {name: bench.communicate(timeout=600)[0] for name, bench in benches.items()}
        for name, bench in benches.items():
            assert bench.returncode == 0, f"{name} bench failed:\n{outputs[name][-3000:]}"
        for name, expected in JOBS.items():
            records = _records(tmp_path / "out" / name / "bench.sqlite3")
            assert len(records) == expected, f"{name}: {len(records)} of {expected} jobs stored"
            assert len({record["task_id"] for record in records}) == expected, name
            errors = [record["error"] for record in records if record["error"]]
            assert errors == [], f"{name}: {errors}"
        coderunner = _records(tmp_path / "out" / "coderunner" / "bench.sqlite3")
        assert any(r["success"] for r in coderunner if r["task_id"] == "HumanEval/0"), \
            "the sandboxed program that passes HumanEval/0 was not verified"
        print(f"\ncompose stack healthy in {up_seconds:.0f}s; "
              f"whole smoke {time.monotonic() - started:.0f}s")
    finally:
        run("down", "--volumes", "--remove-orphans", "--timeout", "5", check=False, timeout=300)


def _root() -> Path:
    return Path(__file__).resolve().parents[2]


def _compose_command(project: str, files: tuple[Path, ...]) -> list[str]:
    from tests.deploy.compose import compose_binary

    command = [str(compose_binary()), "-p", project]
    for file in files:
        command += ["-f", str(file)]
    return command
