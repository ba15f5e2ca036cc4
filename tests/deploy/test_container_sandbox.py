"""The sandbox's hazard suite, run *inside* the code-runner container as deployed.

The compose file's `coderunner` service (non-root, no capabilities, read-only
root, its seccomp profile, unmasked /proc) runs the hazard files (escapes,
verdict forgery, kernel objects left for later runs, shared files and host
counters between overlapping runs) with its own interpreter:
bubblewrap must contain every hazard there, and the unsandboxed control must
show each one working, proving the checks can fail inside a container too
(a hazard the container itself closes to the control, such as the keyring
calls its seccomp profile denies, is skipped with that reason). pytest and its
plugins (pure Python) are copied in from this environment; the tests are
mounted read-only.
"""

from __future__ import annotations

import os
import re
import shutil
from importlib import metadata
from pathlib import Path

import pytest

from tests.deploy.compose import compose
from tests.deploy.images import IMAGE, POSTGRES_IMAGE

TEST_DISTRIBUTIONS = ("pytest", "pluggy", "iniconfig", "packaging", "pytest-asyncio",
                      "pytest-timeout")
HAZARD_FILES = ("test_hazards.py", "test_verdict_hazards.py", "test_kernel_object_hazards.py",
                "test_shared_file_hazards.py", "test_worker_age_hazards.py", "test_dev_and_allocator_hazards.py",
                "test_page_cache_hazards.py", "test_run_kind_hazards.py", "test_id_allocator_hazards.py")


def _copy_distributions(target: Path) -> None:
    """The files of the pure-Python test distributions, laid out as a site folder."""
    for name in TEST_DISTRIBUTIONS:
        distribution = metadata.distribution(name)
        for file in distribution.files or ():
            if str(file).startswith(".."):
                continue  # console scripts
            source = Path(distribution.locate_file(file))
            if source.is_file() and "__pycache__" not in file.parts:
                destination = target / file
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, destination)


def _readable(folder: Path) -> None:
    for root, directories, files in os.walk(folder):
        os.chmod(root, 0o755)
        for name in files:
            os.chmod(Path(root) / name, 0o644)


@pytest.mark.timeout(1500)
def test_the_hazard_suite_passes_inside_the_code_runner_container(deploy_engine, tmp_path):
    root = Path(__file__).resolve().parents[2]
    site = tmp_path / "site"
    _copy_distributions(site)
    _readable(site)
    home = tmp_path / "home"
    home.mkdir(mode=0o777)
    home.chmod(0o777)
    project = f"lats-hazards-{os.getpid()}"
    env = {"DOCKER_HOST": deploy_engine, "LATS_IMAGE": IMAGE, "LATS_POSTGRES_IMAGE": POSTGRES_IMAGE}
    try:
        run = compose(
            "run", "--rm", "--no-deps", "-T", "--entrypoint", "python",
            "-v", f"{site}:/hazard/site:ro", "-v", f"{root / 'tests'}:/hazard/tests:ro",
            "-v", f"{home}:/home/lats", "-e", "PYTHONPATH=/hazard/site:/hazard",
            "coderunner", "-m", "pytest", *(f"/hazard/tests/sandbox/{name}" for name in HAZARD_FILES),
            "-k", "not docker", "-p", "no:cacheprovider", "--rootdir", "/hazard",
            "-o", "asyncio_mode=auto", "-o", "asyncio_default_fixture_loop_scope=function",
            "-q", "-rs", env=env, project=project, check=False, timeout=1400)
        output = run.stdout + run.stderr
        assert run.returncode == 0, output[-4000:]
        passed = re.search(r"(\d+) passed", output)
        assert passed and int(passed.group(1)) >= 80, output[-2000:]
    finally:
        compose("down", "--volumes", "--remove-orphans", "--timeout", "5", env=env,
                project=project, check=False, timeout=300)
