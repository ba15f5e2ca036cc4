"""A user namespace with two uids, so the candidate runs under another uid than its supervisor.

bwrap's own user namespace maps one uid. When the host is root, the worker is
started instead through a small helper that makes a user namespace, waits
until the host has written a two-uid map (inner 0 → the slot's uid, inner 1 →
the next one), becomes inner root and runs bwrap there, which then needs no
user namespace of its own. The sandbox's supervisor keeps only the
capabilities it needs inside that namespace (`SUPERVISOR_CAPABILITIES`), which
reach no host file: only the two mapped uids are anyone there. The candidate
switches to inner uid 1 and has none; the judge keeps only CAP_KILL. Where
runs get namespaces of their own, the supervisor also keeps CAP_SYS_ADMIN
(`RUN_NAMESPACE_CAPABILITY`), which each judge uses once, to make its run's
namespaces and mounts, and drops before any process of the run starts.
"""

from __future__ import annotations

import asyncio
import os

from env_servers.sandbox.base import SandboxUnavailable

CANDIDATE_UID = 1  # inside; the supervisor and the judge are inner 0
MAPPED_UIDS = 2
SUPERVISOR_CAPABILITIES = ("CAP_SETUID", "CAP_SETGID", "CAP_KILL", "CAP_DAC_OVERRIDE", "CAP_FOWNER")
RUN_NAMESPACE_CAPABILITY = "CAP_SYS_ADMIN"  # over the sandbox's own namespaces only: no host object is its
SYSTEM_PYTHON = "/usr/bin/python3"
HELPER = """
import ctypes, os, sys
if ctypes.CDLL(None, use_errno=True).unshare(0x10000000) != 0:
    raise SystemExit("unshare(CLONE_NEWUSER) failed: errno %d" % ctypes.get_errno())
if os.read(0, 1) != b"\\n":
    raise SystemExit("the host did not map the user namespace")
os.setgroups([])
os.setresgid(0, 0, 0)
os.setresuid(0, 0, 0)
os.execv(sys.argv[1], sys.argv[1:])
"""


def helper_argv(argv: list[str]) -> list[str]:
    """`argv` run inside a fresh user namespace, once the host has mapped it (see `map_and_release`)."""
    return [SYSTEM_PYTHON, "-I", "-S", "-c", HELPER, *argv]


def capability_arguments(extra: tuple[str, ...] = ()) -> list[str]:
    """bwrap's flags for the supervisor's capabilities, plus `extra` (CAP_SYS_ADMIN for run namespaces)."""
    return ["--cap-drop", "ALL", *(arg for cap in SUPERVISOR_CAPABILITIES + extra for arg in ("--cap-add", cap))]


async def map_and_release(process: asyncio.subprocess.Process, first_uid: int, timeout: float = 10.0) -> None:
    """Write the helper's uid and gid maps (inner 0.. → `first_uid`..) and let it go on."""
    own = os.readlink("/proc/self/ns/user")
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        try:
            if os.readlink(f"/proc/{process.pid}/ns/user") != own:
                break
        except OSError:
            pass  # not there yet, or already gone: the returncode says
        if process.returncode is not None or asyncio.get_running_loop().time() > deadline:
            raise SandboxUnavailable("the sandbox's user-namespace helper did not start")
        await asyncio.sleep(0.002)
    mapping = f"0 {first_uid} {MAPPED_UIDS}\n"
    for name in ("uid_map", "gid_map"):
        with open(f"/proc/{process.pid}/{name}", "w") as handle:
            handle.write(mapping)
    process.stdin.write(b"\n")
    await process.stdin.drain()
