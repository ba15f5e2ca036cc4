"""Ending a run's processes and removing what a run left: files, and (when the worker retires) IPC objects."""

import os
import signal
import sys
import time

from env_servers.sandbox.ipc_objects import remove_leftovers
from env_servers.sandbox.pristine import wipe
from env_servers.sandbox.worker.state import STATE


def kill_everything_else():
    """Kill and reap every process of this sandbox but the worker itself."""
    if os.getpid() == 1:
        while True:
            try:
                os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                pass
            if not reap(block=True):
                return
    else:  # no PID namespace (insecure process backend): we are a subreaper
        while True:
            children = child_pids()
            for pid in children:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if not reap(block=True) and not children:
                return


def child_pids():
    me = str(os.getpid())
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry, "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if fields[1].decode() == me:
            found.append(int(entry))
    return found


def reap(block):
    """Reap children; return True if any was reaped."""
    reaped = False
    while True:
        try:
            pid, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return reaped
        except InterruptedError:
            continue
        if pid == 0:
            return reaped
        reaped = True
        if block:
            return True


def reap_one():
    """Reap one ended child, if any; True if one was reaped."""
    try:
        ended, _ = os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return False
    return ended > 0


def kill_the_rest_of_the_namespace(give_up_after=2.0):
    """SIGKILL every process of the namespace but its init and this judge, until none is alive.

    kill(-1) spares init (the supervisor, which reaps them) and the caller. A
    process killed is a zombie at most; a fork racing the kill is caught by the
    next round.
    """
    me, give_up = os.getpid(), time.monotonic() + give_up_after
    while time.monotonic() < give_up:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            return
        alive = False
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) not in (1, me):
                try:
                    with open("/proc/%s/stat" % entry, "rb") as handle:
                        state = handle.read().rsplit(b")", 1)[1].split()[0]
                except OSError:
                    continue
                if state not in (b"Z", b"X"):
                    alive = True
                    break
        if not alive:
            return
        time.sleep(0.0005)  # let the killed finish dying


def clean_up_files(work_dir, wipe_dirs):
    """Empty the writable directories (no --pristine: the process backend); False if one could not be emptied."""
    emptied = True
    for directory in wipe_dirs:
        try:
            entries = os.listdir(directory)
        except OSError:
            continue
        if entries:
            emptied = wipe(directory) and emptied
    if os.path.dirname(work_dir) not in wipe_dirs and os.path.isdir(work_dir):
        emptied = wipe(work_dir) and emptied
    return emptied


def retire(wipe_dirs, why):
    """The worker is done (a run left traces, or could not be judged or cleaned): remove what it can, then exit.

    The host replaces it. Removing first is a second line: the sandbox's
    namespaces die with the worker anyway, but the memory a run's System V
    segments or files hold is given back at once.
    """
    try:
        sys.__stderr__.write("the sandbox worker retires: %s\n" % why)
        sys.__stderr__.flush()
    except BaseException:
        pass
    try:
        kill_everything_else()
        if os.getpid() == 1:  # an IPC namespace of our own: its objects are ours to remove
            remove_leftovers([STATE.candidate_uid] if STATE.candidate_uid is not None else [])
        for directory in wipe_dirs:
            wipe(directory)
    finally:
        os._exit(0)
