"""Host-side helpers for the kernel-object hazards: find and remove what a run left in the host's namespaces.

Only the unsandboxed control (the process backend) shares the host's IPC
namespace and keyrings, so only its runs leave anything here; each hazard
removes what its control run made, by the keys and names it chose.
"""

from __future__ import annotations

import ctypes
import os

LIBC = ctypes.CDLL(None, use_errno=True)
IPC_RMID = 0
SYS_KEYCTL = 250  # x86_64
KEYCTL_INVALIDATE = 21


def sysv_keys(kind: str) -> list[int]:
    """The keys of the System V objects of one kind (shm, msg, sem) in this process's IPC namespace."""
    try:
        with open(f"/proc/sysvipc/{kind}") as handle:
            rows = handle.read().splitlines()[1:]
    except OSError:
        return []
    return [int(row.split()[0]) for row in rows if row.split()]


def remove_sysv_keys(first: int, count: int) -> None:
    """Remove the System V objects of every kind whose key is in [first, first + count)."""
    for key in range(first, first + count):
        ident = LIBC.shmget(key, 0, 0)
        if ident >= 0:
            LIBC.shmctl(ident, IPC_RMID, None)
        ident = LIBC.msgget(key, 0)
        if ident >= 0:
            LIBC.msgctl(ident, IPC_RMID, None)
        ident = LIBC.semget(key, 0, 0)
        if ident >= 0:
            LIBC.semctl(ident, 0, IPC_RMID)


def remove_mqueue(name: str) -> None:
    LIBC.mq_unlink(name.encode())


def invalidate_key(serial: int) -> None:
    LIBC.syscall(SYS_KEYCTL, KEYCTL_INVALIDATE, serial)


def remove_file(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
