"""The maintenance command line: `python -m env_servers.sandbox check`."""

from __future__ import annotations

import subprocess
import sys


def test_check_runs_a_program_on_the_named_backend():
    completed = subprocess.run(
        [sys.executable, "-m", "env_servers.sandbox", "check", "bwrap"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "bwrap: ok, 1/2 passed, detail '# output: 2'"
