"""`lats demo` as a user runs it (a scripted model in place of the embedded one, so
it takes seconds): its run lands in the default run store, and the commands it
prints reopen it afterwards."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.timeout(180)
SCRIPT = {"rules": [{"name": "value", "purpose": "value",
                     "responses": ["All numbers used. Thus the correctness score is 9"]}],
          "default": "Answer: 6 * 5 - 10 + 4 = 24"}


def test_the_demo_run_is_stored_where_lats_runs_looks(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    home = tmp_path / "home"
    home.mkdir()
    env = {key: value for key, value in os.environ.items() if key != "LATS_PLANNER_DB"}
    env["HOME"] = str(home)

    def lats(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "lats", *args], capture_output=True,
                              text=True, env=env, timeout=timeout)

    demo = lats("demo", "--backend", "scripted", f"--gateway-arg=--script={script}",
                "--env", "game24", "--task", "game24/900", "-n", "2", "-k", "2", "--no-ui",
                timeout=150)
    assert demo.returncode == 0, demo.stdout[-3000:] + demo.stderr[-3000:]
    assert "== SOLVED" in demo.stdout
    run_id = re.search(r"lats runs show (\w+)", demo.stdout).group(1)
    store = home / ".local" / "share" / "lats" / "runs.sqlite3"
    assert f"the run is stored in {store}" in demo.stdout
    assert f"http://127.0.0.1:8080/run?id={run_id}" in demo.stdout

    listed = lats("runs", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    runs = [json.loads(line) for line in listed.stdout.splitlines()]
    assert [(r["run_id"], r["status"]) for r in runs] == [(run_id, "RUN_STATUS_SOLVED")]
    shown = lats("runs", "show", run_id[:8])
    assert shown.returncode == 0, shown.stderr
    assert "Answer: 6 * 5 - 10 + 4 = 24" in shown.stdout
