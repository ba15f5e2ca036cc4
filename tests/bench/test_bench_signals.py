"""Stopping a bench that started its own services stops them too, however it is stopped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(120)


def children_of(pid: int) -> set[int]:
    """Process ids whose parent is `pid` (from /proc)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def alive(pids: set[int]) -> set[int]:
    living = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            living.add(pid)
    return living


def _as_from_a_terminal() -> None:
    """SIGINT as a terminal's foreground job gets it: a suite started as a background job
    (`make test &`) inherits SIGINT ignored, and a child keeps what it inherits."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_bench(services, tmp_path) -> tuple[subprocess.Popen, set[int]]:
    """A bench with its own three services, in the middle of a slow search."""
    process = subprocess.Popen(
        [sys.executable, "-m", "lats", "bench", "--start-services", "--env-name", "game24",
         "--backend", "scripted", f"--gateway-arg=--script={services['script']}",
         "--gateway-arg=--latency=0.3", "--split", "test", "--slice", "10:14",
         "-m", "lats", "-k", "30", "--out", str(tmp_path / "bench")],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        preexec_fn=_as_from_a_terminal)
    lines = []
    for line in process.stderr:          # the bench names the services once they run
        lines.append(line)
        if "to run" in line:
            break
    services_started = children_of(process.pid)
    assert len(services_started) == 3, "".join(lines)
    time.sleep(1.0)                      # searches are under way
    return process, services_started


def wait_gone(pids: set[int], seconds: float) -> set[int]:
    deadline = time.monotonic() + seconds
    while alive(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive(pids)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_bench_stops_its_services_and_keeps_what_finished(services, tmp_path, signum):
    process, started = start_bench(services, tmp_path)
    stopped_at = time.monotonic()
    process.send_signal(signum)
    process.wait(30)
    assert time.monotonic() - stopped_at < 20, "the bench took too long to stop"
    assert process.returncode != 0
    assert "run again with --resume" in process.stderr.read()
    assert wait_gone(started, 20) == set(), "a service outlived the bench"


def test_a_killed_bench_takes_its_services_with_it(services, tmp_path):
    process, started = start_bench(services, tmp_path)
    process.kill()
    process.wait(10)
    assert wait_gone(started, 20) == set(), "a service outlived a SIGKILLed bench"
