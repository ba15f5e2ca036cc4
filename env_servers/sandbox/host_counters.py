"""The host-wide counters under /proc that a sandbox hides from its runs.

A sandbox's /proc is its PID namespace's, but some of its files count what the
whole host does: open files (/proc/sys/fs/file-nr moves by exactly the number
of descriptors any process opens), threads and forks (/proc/loadavg,
/proc/stat), memory, interrupts, pressure, ptys. A run that opens 59 files, in
one sandbox, moves file-nr by 59 in every other sandbox at once: an exact
channel between runs that overlap (from a Score run's program, called with the
hidden tests' arguments, to another episode's Step). Every backend hides them:
where runs share the worker's /proc, it mounts an
empty read-only directory over each of HOST_WIDE_DIRS and an empty file over
each of HOST_WIDE_FILES; the seccomp filter denies sysinfo(2), which reports
the host's process count and memory. Where runs have namespaces of their own
(bwrap's default), a run sees a /proc of its own processes only (subset=pid,
worker/run_namespaces.py), where none of these exists: bwrap mounts no mask
there (the kernel would refuse that /proc under a masked one), and nor does
docker under /proc (its container is made with no masked or read-only path
there, `systempaths=unconfined`), only over /sys.
"""

from __future__ import annotations

import os
import tempfile

from env_servers.sandbox.base import SandboxUnavailable

HOST_WIDE_DIRS = (
    "/proc/sys/fs",          # file-nr, inode-nr, dentry-state, aio-nr
    "/proc/sys/kernel/pty",  # nr: ptys open on the host
    "/proc/pressure",        # CPU, memory and I/O stall times
)
HOST_WIDE_FILES = (
    "/proc/stat", "/proc/loadavg", "/proc/uptime", "/proc/meminfo", "/proc/vmstat",
    "/proc/zoneinfo", "/proc/buddyinfo", "/proc/pagetypeinfo", "/proc/slabinfo",
    "/proc/swaps", "/proc/diskstats", "/proc/interrupts", "/proc/softirqs",
    "/proc/schedstat", "/proc/key-users", "/proc/cgroups",
)
# What Docker masks by default under /proc (moby's oci defaults; a container's MaskedPaths
# replaces them, so they are kept here). Its /sys is masked whole: bwrap mounts none, and sysfs
# counts the host too (each NUMA node's meminfo and vmstat, every disk's reads).
DOCKER_DEFAULT_MASKS = (
    "/proc/asound", "/proc/acpi", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
    "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi",
)


def present(paths: tuple[str, ...]) -> list[str]:
    """The `paths` this kernel has (the sandbox's /proc shows the host kernel's)."""
    return [path for path in paths if os.path.exists(path)]


def docker_masked_paths(run_namespaces: bool = False) -> list[str]:
    """A container's MaskedPaths: Docker's defaults, the host-wide counters and /sys; /sys alone where runs
    have namespaces of their own (each sees a /proc of its own processes only)."""
    if run_namespaces:
        return ["/sys"]
    return [*DOCKER_DEFAULT_MASKS, *HOST_WIDE_DIRS, *HOST_WIDE_FILES, "/sys"]


class EmptyFile:
    """A read-only empty file on the host, for bwrap to bind over /proc files.

    bwrap cannot bind /dev/null there (device nodes are refused in its user
    namespace), so a regular file: in /tmp (not $TMPDIR, which may be private:
    the sandbox's bwrap runs as a slot's unprivileged uid and must reach it),
    readable by every uid, made again if something removed or filled it.
    """

    def __init__(self) -> None:
        self._path = ""

    def path(self) -> str:
        if not self._path or not os.path.isfile(self._path) or os.path.getsize(self._path):
            self.remove()
            where = "/tmp" if os.path.isdir("/tmp") else None
            try:
                descriptor, self._path = tempfile.mkstemp(prefix="lats-sandbox-empty-", dir=where)
                os.close(descriptor)
                os.chmod(self._path, 0o444)
            except OSError as error:
                raise SandboxUnavailable(
                    f"the sandbox hides the host's /proc counters behind an empty file in "
                    f"{where or tempfile.gettempdir()}, and could not make one ({error}): "
                    "make that directory writable, with space left") from None
        return self._path

    def remove(self) -> None:
        if self._path:
            try:
                os.unlink(self._path)
            except OSError:
                pass
            self._path = ""


def bwrap_masks(empty_file: str) -> list[str]:
    """bwrap arguments (after --proc) that hide the host-wide counters this kernel has."""
    arguments: list[str] = []
    for directory in present(HOST_WIDE_DIRS):
        arguments += ["--tmpfs", directory, "--remount-ro", directory]
    for path in present(HOST_WIDE_FILES):
        arguments += ["--ro-bind", empty_file, path]
    return arguments
