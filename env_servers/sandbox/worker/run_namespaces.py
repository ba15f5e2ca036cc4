"""Namespaces of each run's own (--run-namespaces, bwrap): what a run makes dies with it, by construction.

A worker serves many runs, so every kernel or filesystem object a run can
make and leave must live in something that dies with the run. Each judge,
before any process of its run exists and before it reads anything, calls
`enter_run_namespaces`:

  unshare(CLONE_NEWIPC)  System V objects and POSIX message queues (mq_open
                         reaches the caller's IPC namespace), with their id
                         counters: a namespace starts empty, counters at zero
  unshare(CLONE_NEWNET)  abstract unix sockets (their names live in the
                         network namespace; a socket kept in flight outlives
                         its processes until the kernel's garbage collector
                         runs, and its name with it)
  unshare(CLONE_NEWNS)   a mount namespace of the run's own, where each
                         writable tmpfs of the sandbox (/tmp with the work
                         dir in it, /dev/shm) gets a fresh, empty tmpfs of the
                         same size and mode: files, their metadata and the
                         tmpfs inode counter are the run's own

The kernel frees all three, and everything in them, when the run's last
process is gone. The sandbox's mounts are private (bwrap's), so nothing
mounted here propagates back to the worker's namespace; no mqueue
filesystem is mounted anywhere (a mount of the worker's namespace would be a
path into one namespace every run shares).

The worker's filter (hardening.load_seccomp_filter, with SETUP_CALLS) lets
through exactly these calls: unshare with exactly RUN_FLAGS and mount with
exactly TMPFS_FLAGS. The judge then drops CAP_SYS_ADMIN (which bwrap granted,
over the sandbox's own namespaces only) and stacks a second filter that
denies unshare and mount whatever their arguments, before it forks the
candidate or the tester: the program and every test run under a filter as
strict as the worker's was before runs had namespaces.

Still shared by the runs of one worker: the PID namespace (processes are
killed before the reply; ns_last_pid is checked, see pristine.py), the user,
UTS and cgroup namespaces (nothing there a run can change without a
capability) and the host-wide counters the sandbox README lists.
"""

import ctypes
import errno
import os

from env_servers.sandbox.worker.hardening import LIBC, PRCTL, drop_capability
from env_servers.sandbox.worker.state import STATE

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWNET = 0x00020000, 0x08000000, 0x40000000
RUN_FLAGS = CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWNS
MS_NOSUID, MS_NODEV = 2, 4
TMPFS_FLAGS = MS_NOSUID | MS_NODEV  # what bwrap's own tmpfs mounts have
SETUP_CALLS = (("unshare", 0, RUN_FLAGS), ("mount", 3, TMPFS_FLAGS))  # for hardening.load_seccomp_filter
RUN_DENIED = ("unshare", "mount")  # the run's own filter, stacked by its judge
CAP_SYS_ADMIN = 21
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
UNSHARE, MOUNT = LIBC.unshare, LIBC.mount  # looked up once: each judge finds them made


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class RunNamespaces:
    """What each judge needs to make its run's namespaces: the tmpfs mounts to renew and the run's filter.

    `tmpfs_dirs`: the sandbox's writable tmpfs mount points; each run gets a
    fresh tmpfs on each, with the size and mode the worker found there.
    Built once in the supervisor (after its own filter is loaded), so a judge
    only makes syscalls.
    """

    def __init__(self, tmpfs_dirs):
        self.mounts = []
        for directory in tmpfs_dirs:
            if not os.path.ismount(directory):
                raise SystemExit("--run-namespaces: %s is not a mount point" % directory)
            size = os.statvfs(directory)
            options = "size=%d,mode=%o" % (size.f_blocks * size.f_frsize, os.stat(directory).st_mode & 0o7777)
            self.mounts.append((directory.encode(), options.encode()))
        self.filter_code, self.filter = run_filter_program()


def run_filter_program():
    """(BPF buffer, sock_fprog): the filter each judge stacks, denying RUN_DENIED whatever the arguments.

    Compiled once (libseccomp) and kept as raw BPF, so a judge loads it with one prctl.
    """
    import seccomp

    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for name in RUN_DENIED:
        rules.add_rule(seccomp.ERRNO(errno.EPERM), name)
    read_end, write_end = os.pipe()
    try:
        with os.fdopen(write_end, "wb", closefd=False) as stream:
            rules.export_bpf(stream)
        os.close(write_end)
        write_end = None
        program = b""
        while True:
            chunk = os.read(read_end, 1 << 16)
            if not chunk:
                break
            program += chunk
    finally:
        os.close(read_end)
        if write_end is not None:
            os.close(write_end)
    code = ctypes.create_string_buffer(program, len(program))
    return code, _SockFprog(len(program) // 8, ctypes.addressof(code))


def enter_run_namespaces():
    """The judge's first act: the run's own IPC, network and mount namespaces, then the run's filter.

    Ends with CAP_SYS_ADMIN dropped and the run's filter stacked, both before
    the candidate and tester are forked; the judge's cwd is `/` (its old one
    is covered by the fresh tmpfs). Raises OSError if any step fails: the
    judge then ends without replying, and the worker retires.
    """
    run = STATE.run_namespaces
    if UNSHARE(RUN_FLAGS) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWNS) failed")
    for target, options in run.mounts:
        if MOUNT(b"tmpfs", target, b"tmpfs", TMPFS_FLAGS, options) != 0:
            raise OSError(ctypes.get_errno(), "mount of a fresh tmpfs on %s failed" % target.decode())
    os.chdir("/")
    drop_capability(CAP_SYS_ADMIN)
    if PRCTL(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(run.filter), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")


def check_run_namespaces():
    """Make and leave one run's namespaces in a throwaway fork, as a judge will; SystemExit if it cannot.

    Said once at startup, with the reason, rather than by every run's judge.
    """
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_end)
            try:
                enter_run_namespaces()
                os.write(write_end, b"ok")
            except OSError as error:
                os.write(write_end, str(error).encode()[:200])
        finally:
            os._exit(0)
    os.close(write_end)
    answer = os.read(read_end, 256)
    os.close(read_end)
    os.waitpid(pid, 0)
    if answer != b"ok":
        raise SystemExit(
            "the sandbox worker cannot give each run namespaces of its own (%s): its sandbox must grant "
            "CAP_SYS_ADMIN in the sandbox's own user namespace" % (answer.decode(errors="replace") or "no answer")
        )
