"""lats_client.local_suite, used from a plain script: the suite starts, a search runs, and
nothing is left running after the block."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "tests" / "e2e" / "game24_4_5_6_10.json"

SCRIPT = textwrap.dedent(f'''
    import os
    from lats_client import local_suite

    with local_suite("game24", backend="scripted",
                     gateway_args=["--script", {str(RULES)!r}]) as suite:
        result = suite.planner.solve(suite.env, "game24/900", method="lats_paper", n=2, k=10,
                                     depth=4, seed=7).result()
        print("STATUS", result.status)
        print("ADDRESSES", suite.env, suite.gateway, suite.planner_address)
        print("DB", os.path.exists(suite.db), suite.db)
''')


def _listening(address: str) -> bool:
    import socket

    host, port = address.rsplit(":", 1)
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex((host, int(port))) == 0


def test_a_script_starts_the_suite_solves_and_leaves_nothing_running(tmp_path):
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)
    assert lines["STATUS"] == "solved"
    assert lines["DB"].startswith("True ")
    assert not Path(lines["DB"].split(" ", 1)[1]).exists(), "the temporary run store is removed"
    for address in lines["ADDRESSES"].split():
        assert not _listening(address), f"{address} still answers after the block"
