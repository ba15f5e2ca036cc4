"""Turning a fresh fork into a process of the run: its descriptors, standard streams and rlimits."""

import gc
import os
import random
import resource

from env_servers.sandbox.worker.state import STATE

LIMIT_NAMES = ("wall_seconds", "cpu_seconds", "memory_bytes", "max_processes", "max_output_bytes", "max_file_bytes")


def close_all_but(*fds):
    """Close every descriptor below 65536 but 0, 1, 2 and `fds`."""
    keep = sorted({0, 1, 2, *fds})
    for low, high in zip(keep, keep[1:] + [1 << 16]):
        if high > low + 1:
            os.closerange(low + 1, high)


def redirect_streams(out_fd, err_fd):
    """stdin from /dev/null, stdout to `out_fd`, stderr to `err_fd` (those two closed unless they are 1 and 2)."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(out_fd, 1)
    os.dup2(err_fd, 2)
    for fd in (null, out_fd, err_fd):
        if fd > 2:
            os.close(fd)


def enter_work_dir(work_dir):
    """Make (if missing) and enter the run's working directory; files the run makes are its own."""
    try:
        os.mkdir(work_dir, 0o700)
    except FileExistsError:
        pass
    os.chdir(work_dir)
    os.umask(0o077)


def set_limits(limits):
    """The run's rlimits on this process (a cap above the hard limit is lowered to it)."""

    def cap(kind, value):
        try:
            resource.setrlimit(kind, (value, value))
        except (ValueError, OSError):
            soft, hard = resource.getrlimit(kind)
            if hard != resource.RLIM_INFINITY and value > hard:
                resource.setrlimit(kind, (hard, hard))

    cpu = max(1, int(limits["cpu_seconds"]))
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(
        resource.RLIMIT_CPU, (cpu, cpu + 1 if hard == resource.RLIM_INFINITY else min(cpu + 1, hard))
    )
    cap(resource.RLIMIT_AS, int(limits["memory_bytes"]))
    cap(resource.RLIMIT_NPROC, int(limits["max_processes"]))
    cap(resource.RLIMIT_FSIZE, int(limits["max_file_bytes"]))
    cap(resource.RLIMIT_NOFILE, 64)
    cap(resource.RLIMIT_CORE, 0)


def process_budget(limits, own_uid):
    """`limits` with max_processes counted as RLIMIT_NPROC counts it, for the candidate or the tester.

    The run's processes are its judge, the candidate and what the candidate
    starts: at most max_processes; the tester, machinery like the judge,
    comes on top. RLIMIT_NPROC counts the processes of the candidate's uid,
    the tester's among them. With a uid of its own (`own_uid`) that is the
    candidate's side and the tester (the judge is one fewer, the tester one
    more); with the judge's uid it is the supervisor, the judge and the tester
    as well (the supervisor and the tester, not the run's, are two more; with
    run namespaces, the process the supervisor was forked from is a third).
    """
    limits = dict(limits)
    machinery = 0 if own_uid else 2 + (STATE.run_namespaces is not None)
    limits["max_processes"] = max(1, int(limits["max_processes"]) + machinery)
    return limits


def start_run_state(limits):
    """The run's rlimits, the garbage collector back on (the worker froze it), the same random state every run."""
    set_limits(limits)
    gc.enable()
    random.seed(0)  # every run the same random state (fork re-seeds from the OS)
