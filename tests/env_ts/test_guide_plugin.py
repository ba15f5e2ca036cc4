"""The guide's Python plugin example works as written.

Takes the domain and the entry point from docs/writing-an-environment.md,
installs them as a package (a dist-info declaring the `lats.environments`
entry point), serves it with `lats serve env countdown` and runs the
conformance kit against it.
"""

from __future__ import annotations

import os
import re
import subprocess
import tomllib
from pathlib import Path

from lats.processes import start_service
from tests.kit import kit_command, kit_results

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "writing-an-environment.md"


def _block(language: str) -> str:
    blocks = re.findall(rf"```{language}\n(.*?)```", GUIDE.read_text(), re.S)
    assert blocks, f"the guide has no {language} block"
    return blocks[0]


def test_the_guides_plugin_is_served_and_passes_the_kit(tmp_path):
    package = tmp_path / "countdown_env"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "domain.py").write_text(_block("python"))
    entry_points = tomllib.loads(_block("toml"))["project"]["entry-points"]["lats.environments"]
    assert entry_points == {"countdown": "countdown_env.domain:CountdownDomain"}
    info = tmp_path / "countdown_env-1.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: countdown-env\nVersion: 1.0.0\n")
    (info / "entry_points.txt").write_text(
        "[lats.environments]\n" + "".join(f"{k} = {v}\n" for k, v in entry_points.items()))
    path = os.pathsep.join([str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])])
    env = {"PYTHONPATH": path}
    service = start_service("countdown", ["env", "countdown", "--session-ttl", "2",
                                          "--max-sessions", "32", "--snapshot-key", "k"],
                            env=env, timeout=60)
    try:
        report = tmp_path / "kit.xml"
        run = subprocess.run(kit_command(service.address, report), capture_output=True,
                             text=True, timeout=170, env={**os.environ, **env})
        assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
        results = kit_results(report)
        assert results["test_transition_equals_restore_step_snapshot"] == "passed"
        assert results["test_capacity_is_resource_exhausted"] == "passed"
    finally:
        assert service.stop(timeout=10) == 0, service.log_tail()
