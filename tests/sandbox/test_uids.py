"""Slot uids: no two pools on one host share a block, containers included."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from env_servers.sandbox.uids import UID_BASE, UIDS_PER_PROCESS, allocate_uid

FIRST_UID = "from env_servers.sandbox.uids import allocate_uid; print(allocate_uid())"


def test_a_process_hands_out_fresh_uids_within_its_own_block():
    first, second = allocate_uid(), allocate_uid(3)
    assert first != second and UID_BASE <= first
    assert (first - UID_BASE) // UIDS_PER_PROCESS == (second + 2 - UID_BASE) // UIDS_PER_PROCESS


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"), reason="needs root to make PID namespaces")
def test_servers_with_the_same_pid_in_two_pid_namespaces_get_different_blocks():
    """Two replicas' servers in containers on one host are often both PID 1; their uids must differ."""
    blocks = []
    for _ in range(2):
        # `unshare --fork --pid` makes the interpreter PID 1 of a namespace of its own.
        command = ["unshare", "--fork", "--pid", "--mount-proc", sys.executable, "-c",
                   "import os; assert os.getpid() == 1; " + FIRST_UID]
        uid = int(subprocess.run(command, capture_output=True, text=True, check=True, timeout=60,
                             cwd=Path(__file__).resolve().parents[2]).stdout)
        blocks.append((uid - UID_BASE) // UIDS_PER_PROCESS)
    assert blocks[0] != blocks[1], f"both PID 1 servers took block {blocks[0]}"
