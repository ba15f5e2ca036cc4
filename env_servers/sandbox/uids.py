"""Unprivileged host uids for sandbox slots, when the host process is root.

Each slot gets its own uid (and a group of the same number, no supplementary
groups), so RLIMIT_NPROC counts only that slot's processes, host-side checks can
find everything a slot left, and bwrap never runs as root. A process takes a
block of uids derived from its pid and its PID namespace, so concurrent pools on
one host do not share: not two processes of one namespace, and not the servers
of two containers on one host, which often have the same pid (RLIMIT_NPROC
counts a uid's processes host-wide, so a shared uid would let one replica's
run use up another's processes).
"""

from __future__ import annotations

import itertools
import os

UID_BASE = 3_000_000
UIDS_PER_PROCESS = 1000
BLOCKS = 1_000_000
_next = itertools.count()


def running_as_root() -> bool:
    return os.geteuid() == 0


def allocate_uid(count: int = 1) -> int:
    """The first of `count` fresh consecutive unprivileged uids for one slot of this process."""
    block = UID_BASE + block_index() * UIDS_PER_PROCESS
    while True:
        first = next(_next) % UIDS_PER_PROCESS
        for _ in range(count - 1):
            next(_next)
        if first + count <= UIDS_PER_PROCESS:  # a run that wraps past the block's end is skipped
            return block + first


def block_index() -> int:
    """This process's block: distinct for distinct pids of one PID namespace, and for
    one pid in PID namespaces whose inode numbers differ by less than BLOCKS (the
    multiplier is prime to BLOCKS, and spreads neighbouring namespaces' small pids)."""
    try:
        namespace = os.stat("/proc/self/ns/pid").st_ino
    except OSError:  # no /proc: one namespace is all this process can tell
        namespace = 0
    return (namespace * 7919 + os.getpid()) % BLOCKS


def processes_of_uid(uid: int) -> list[int]:
    """Host pids whose real uid is `uid` (zombies included)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    found.append(int(entry))
            except FileNotFoundError:
                continue
    return found
