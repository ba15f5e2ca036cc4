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
    """Two replicas' servers in containers on one host are often both PID 1; their uids must differ.

    Both servers live at once, as replicas do (a namespace's number is reused once it is freed, so two
    servers one after the other may share a block, harmlessly: they never run together).
    """
    # `unshare --fork --pid` makes the interpreter PID 1 of a namespace of its own; it stays until stdin closes.
    command = ["unshare", "--fork", "--pid", "--mount-proc", sys.executable, "-c",
               "import os, sys; assert os.getpid() == 1; " + FIRST_UID + "; sys.stdout.flush(); sys.stdin.read()"]
    servers = [subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                cwd=Path(__file__).resolve().parents[2]) for _ in range(2)]
    try:
        blocks = [(int(server.stdout.readline()) - UID_BASE) // UIDS_PER_PROCESS for server in servers]
    finally:
        for server in servers:
            server.stdin.close()
            server.wait(timeout=60)
    assert blocks[0] != blocks[1], f"both PID 1 servers took block {blocks[0]}"
