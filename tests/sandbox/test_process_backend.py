"""The INSECURE process backend: the split judge with no sandbox around it, and what it must still get right.

test_runs.py runs its programs there as on the secure backends (verdicts,
limits, crashes, recycling); here is what only this backend has to mind: no
PID namespace ends the judge with its worker, and every process the judge
could kill is the host's.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time

import pytest

from env_servers.sandbox import make_sandbox
from env_servers.sandbox.channel import SubprocessChannel
from env_servers.sandbox.worker_script import SPLIT
from tests.sandbox.observe import running


def test_the_process_backend_runs_the_split_judge_and_says_it_is_insecure():
    box = make_sandbox("process", allow_insecure=True)
    assert box.launcher.design is SPLIT and box.verdict_isolated
    assert box.secure is False


# Runs as PID 1 of a throwaway PID namespace: whatever the orphaned judge kills, it kills in there.
ORPHANED_JUDGE = r"""
import asyncio, os, signal, subprocess, tempfile
from env_servers.sandbox import Limits, RunRequest, make_sandbox
from tests.sandbox.observe import running as running_process

async def main():
    assert os.getpid() == 1
    bystander = subprocess.Popen(["sleep", "60"])
    box = make_sandbox("process", allow_insecure=True, workers=1)
    try:
        await box.start()
        record = os.path.join(tempfile.mkdtemp(), "candidate.pid")
        program = f"import os, time\nopen({record!r}, 'w').write(str(os.getpid()))\ntime.sleep(20)\n"
        sleeper = RunRequest(program=program, tests=(), limits=Limits(wall_seconds=2))
        running = asyncio.ensure_future(box.run(sleeper))
        await asyncio.sleep(0.5)
        for pid in box.worker_host_pids():
            os.kill(pid, signal.SIGKILL)
        subprocess.run(["true"])  # the pid counter moves past the run's, as it does on a busy host
        print("killed mid-run:", (await asyncio.wait_for(running, 20)).status)
        await asyncio.sleep(2 + 1.5 + 1)  # past the run's deadline and the supervisor's watchdog margin
        print("bystander alive:", bystander.poll() is None)
        print("candidate alive:", running_process(int(open(record).read())))
    finally:
        await box.aclose()
        bystander.kill()

asyncio.run(main())
"""


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                    reason="a PID namespace of the test's own needs root and util-linux's unshare")
def test_a_worker_killed_mid_run_takes_its_judge_along_and_nothing_else():
    """Killed with its worker, the judge dies too, and the program with it (the run reads as crashed);
    nothing beyond the run is killed.

    A judge that outlived its worker was reparented to init, took that for its
    sandbox's PID 1, and killed every process it could signal.
    """
    result = subprocess.run(
        ["unshare", "--pid", "--fork", "--mount-proc", sys.executable, "-c", ORPHANED_JUDGE],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "killed mid-run: crashed" in result.stdout, result.stdout + result.stderr[-3000:]
    assert "bystander alive: True" in result.stdout, result.stdout + result.stderr[-3000:]
    assert "candidate alive: False" in result.stdout, result.stdout + result.stderr[-3000:]


def test_killing_a_channel_whose_worker_already_exited_still_ends_its_process_group():
    """A worker that exits first leaves its group behind; kill() ends what is left of it."""

    async def leave_a_process_behind() -> int:
        process = await asyncio.create_subprocess_exec(
            "sh", "-c", "sleep 300 </dev/null >/dev/null 2>&1 & echo $!",
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True,
        )
        channel = SubprocessChannel(process)
        left_behind = int(await process.stdout.readline())
        await process.wait()  # the worker has exited and been reaped; its child has not
        assert os.path.exists(f"/proc/{left_behind}")
        await channel.kill()
        return left_behind

    left_behind = asyncio.run(leave_a_process_behind())
    try:
        for _ in range(100):
            if not running(left_behind):
                break
            time.sleep(0.02)
        assert not running(left_behind), "the worker's group outlived kill()"
    finally:
        if running(left_behind):
            os.kill(left_behind, 9)
