"""Namespaces of each run's own (--run-namespaces): what a run makes dies with it, by construction.

A worker serves many runs, so every kernel or filesystem object a run can
make and leave must live in something that dies with the run, and nothing a
run sees may tell how many runs came before it. The supervisor forks each
judge as PID 1 of a PID namespace of the run's own
(`fork_in_a_fresh_pid_namespace`), and each judge, before any other process
of its run exists and before it reads anything, calls `enter_run_namespaces`:

  unshare(CLONE_NEWPID)  (the supervisor's, before it forks the judge) the
                         run's processes: the judge is their init, so they die
                         with it whatever they do, cannot signal it, and see
                         the same pids in every run (the judge 1, the candidate
                         2, the tester 3): a run cannot read its worker's age
                         off its pids, nor whether the last run retired it
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
                         tmpfs inode counter are the run's own; a POSIX
                         queue filesystem of the sandbox's (docker mounts
                         one at /dev/mqueue) gets a fresh one of the run's
                         IPC namespace, so no queue of the worker's is a path
                         away; the sandbox's pty filesystem (/dev/pts) a fresh
                         instance (a run's ptys, and the times the tty layer
                         stamps on its ptmx, are the run's own); a writable
                         /dev (docker's) is made read-only, so no run can leave
                         a mark there, not even an access time; and /proc is
                         the run's PID namespace's, with only its processes'
                         directories (subset=pid: none of the host-wide
                         files host_counters.py lists, no /proc/sys)

The kernel frees them all, and everything in them, when the run's last
process is gone. The sandbox's mounts are private (bwrap's, and docker's
container's), so nothing mounted here propagates back to the worker's
namespace.

The worker's filter (hardening.load_seccomp_filter, with SETUP_CALLS) lets
through exactly these calls: unshare with exactly RUN_FLAGS or exactly
CLONE_NEWPID, setns back into a PID namespace (the supervisor's own, after
each judge's fork) and mount with exactly TMPFS_FLAGS, DEVPTS_FLAGS,
READ_ONLY_AGAIN, MS_BIND (/dev/full over /dev/zero) or MQUEUE_FLAGS (a fresh,
read-only queue filesystem). The judge then drops
CAP_SYS_ADMIN (which bwrap granted, over the sandbox's own namespaces only)
and stacks a second filter that denies unshare, setns and mount whatever
their arguments, and every way to a pidfd (pidfd_open, which the supervisor
uses, clone's CLONE_PIDFD, SO_PEERPIDFD and SO_PASSPIDFD), before it forks
the candidate or the tester: the program and every test run under a filter
as strict as the worker's was before runs had namespaces, and stricter.

Still shared by the runs of one worker: the user, UTS and cgroup namespaces
(nothing there a run can change without a capability) and the host-wide
counters the sandbox README lists.

Where the sandbox grants no capability at all (docker: the worker is a
container's non-root main process), the worker first makes a user namespace
of its own (--own-user-namespace, `enter_a_user_namespace_of_the_workers_own`),
mapping only its own uid and gid, and keeps CAP_SYS_ADMIN alone over it, as
bwrap's supervisor does; its filter, loaded next, then denies every further
user namespace (clone's and unshare's flags), as bwrap's --disable-userns does.
"""

import ctypes
import errno
import os

from env_servers.sandbox.worker.hardening import LIBC, LOW_32, PRCTL, SOL_SOCKET, drop_capability, keep_only
from env_servers.sandbox.worker.state import STATE

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWNET, CLONE_NEWPID = 0x00020000, 0x08000000, 0x40000000, 0x20000000
CLONE_NEWUSER = 0x10000000
RUN_FLAGS = CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWNS  # the judge's; the supervisor's is CLONE_NEWPID
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND = 1, 2, 4, 8, 32, 4096
TMPFS_FLAGS = MS_NOSUID | MS_NODEV  # what bwrap's own tmpfs mounts have (the run's /proc too)
DEVPTS_FLAGS = MS_NOSUID | MS_NOEXEC  # device nodes of its own: the ptys
MQUEUE_FLAGS = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC  # no queue made by path either (hardening.py: mq_open)
READ_ONLY_AGAIN = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NOEXEC  # the flags a /dev keeps, and read-only
ZEROS = (b"/dev/full", b"/dev/zero")  # /dev/full bound over /dev/zero: zeros to read, no shared mapping (below)
DEVPTS_OPTIONS = b"newinstance,ptmxmode=0666,mode=0620"
MQUEUE_MOUNTS = ("/dev/mqueue",)  # where a sandbox may have mounted its IPC namespace's queues
PROC_OPTIONS = b"subset=pid,hidepid=invisible"  # the run's processes only (no host-wide file, no /proc/sys), and of those only what a process may ptrace-read
SETUP_CALLS = (  # for hardening.load_seccomp_filter
    ("unshare", 0, RUN_FLAGS), ("unshare", 0, CLONE_NEWPID), ("setns", 1, CLONE_NEWPID), ("mount", 3, TMPFS_FLAGS),
    ("mount", 3, DEVPTS_FLAGS), ("mount", 3, READ_ONLY_AGAIN), ("mount", 3, MS_BIND), ("mount", 3, MQUEUE_FLAGS),
)  # fmt: skip
RUN_DENIED = ("unshare", "setns", "mount", "pidfd_open")  # the run's own filter, stacked by its judge
# pidfds, whatever way they are made, are denied to the run's processes (the supervisor keeps pidfd_open):
# a pidfd's inode number is the next of one host-wide counter every fork on the host moves, and a run read
# its own off one (found attacking the sandbox: a Score run's secret reached the next Step exactly).
CLONE_PIDFD = 0x00001000
PIDFD_SOCKET_OPTIONS = (("getsockopt", 77), ("setsockopt", 76))  # SO_PEERPIDFD, SO_PASSPIDFD (SCM_PIDFD)
CAP_SYS_ADMIN = 21
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
PR_CAPBSET_DROP, LAST_CAPABILITY = 24, 63
UNSHARE, SETNS, MOUNT = LIBC.unshare, LIBC.setns, LIBC.mount  # looked up once: each judge finds them made


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class RunNamespaces:
    """What each judge needs to make its run's namespaces: the tmpfs mounts to renew and the run's filter.

    `tmpfs_dirs`: the sandbox's writable tmpfs mount points; each run gets a
    fresh tmpfs on each, with the size and mode the worker found there, a
    fresh, read-only queue filesystem on each of MQUEUE_MOUNTS and a fresh pty filesystem
    on /dev/pts where the sandbox mounted them, and /dev read-only again where
    it is writable. `mounts`: (source, target, type, flags, options) each.
    `worker_pid_namespace`: a descriptor of the worker's own PID namespace,
    which the supervisor re-enters (for its later forks) after each judge's.
    Built once in the supervisor (after its own filter is loaded), so a judge
    only makes syscalls.
    """

    def __init__(self, tmpfs_dirs):
        self.worker_pid_namespace = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
        self.mounts = []
        for directory in tmpfs_dirs:
            if not os.path.ismount(directory):
                raise SystemExit("--run-namespaces: %s is not a mount point" % directory)
            size = os.statvfs(directory)
            options = "size=%d,mode=%o" % (size.f_blocks * size.f_frsize, os.stat(directory).st_mode & 0o7777)
            self.mounts.append((b"tmpfs", directory.encode(), b"tmpfs", TMPFS_FLAGS, options.encode()))
        for directory in MQUEUE_MOUNTS:
            if os.path.ismount(directory):
                self.mounts.append((b"mqueue", directory.encode(), b"mqueue", MQUEUE_FLAGS, None))
        if os.path.ismount("/dev/pts"):
            self.mounts.append((b"devpts", b"/dev/pts", b"devpts", DEVPTS_FLAGS, DEVPTS_OPTIONS))
        if os.path.ismount("/dev") and not os.statvfs("/dev").f_flag & os.ST_RDONLY:
            self.mounts.append((None, b"/dev", None, READ_ONLY_AGAIN, None))
        if all(os.path.exists(path) for path in ZEROS):  # a shared mapping of /dev/zero is a file of the host's
            self.mounts.append((ZEROS[0], ZEROS[1], None, MS_BIND, None))  # one shmem mount (hardening.py)
        self.mounts.append((b"proc", b"/proc", b"proc", TMPFS_FLAGS, PROC_OPTIONS))
        self.filter_code, self.filter = run_filter_program()


def run_filter_program():
    """(BPF buffer, sock_fprog): the filter each judge stacks: RUN_DENIED whatever the arguments, and every pidfd.

    Compiled once (libseccomp) and kept as raw BPF, so a judge loads it with one prctl.
    """
    import seccomp

    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for name in RUN_DENIED:
        rules.add_rule(seccomp.ERRNO(errno.EPERM), name)
    rules.add_rule(seccomp.ERRNO(errno.EPERM), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, CLONE_PIDFD, CLONE_PIDFD))
    for name, option in PIDFD_SOCKET_OPTIONS:
        rules.add_rule(seccomp.ERRNO(errno.EPERM), name, seccomp.Arg(1, seccomp.MASKED_EQ, LOW_32, SOL_SOCKET),
                       seccomp.Arg(2, seccomp.MASKED_EQ, LOW_32, option))
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


def enter_a_user_namespace_of_the_workers_own():
    """Go on in a fresh user namespace that maps only this process's uid and gid, holding CAP_SYS_ADMIN alone.

    For a sandbox that grants no capability (docker's non-root container):
    over this namespace the worker may then make each run's namespaces, and
    nothing of the host's is its (every object outside belongs to the
    container's user namespace). Every other capability leaves the bounding,
    permitted and effective sets; setgroups is denied, so the groups cannot
    be dropped to pass a group's denial. SystemExit, saying what the
    container must allow, if the kernel or the container refuses it.
    """
    uid, gid = os.getuid(), os.getgid()
    if UNSHARE(CLONE_NEWUSER) != 0:
        raise SystemExit(
            "the sandbox worker cannot make a user namespace (%s): its container's seccomp profile must allow "
            "unshare(CLONE_NEWUSER) (env_servers/sandbox/container_seccomp.json) and the kernel unprivileged "
            "user namespaces" % os.strerror(ctypes.get_errno()))
    for name, text in (("setgroups", "deny"), ("uid_map", "%d %d 1" % (uid, uid)), ("gid_map", "%d %d 1" % (gid, gid))):
        with open("/proc/self/" + name, "w") as handle:
            handle.write(text)
    for number in range(LAST_CAPABILITY + 1):
        if number != CAP_SYS_ADMIN and PRCTL(PR_CAPBSET_DROP, number, 0, 0, 0) != 0 \
                and ctypes.get_errno() != errno.EINVAL:  # EINVAL: a capability this kernel does not have
            raise SystemExit("the sandbox worker cannot drop capability %d: %s"
                             % (number, os.strerror(ctypes.get_errno())))
    keep_only(CAP_SYS_ADMIN)


def become_init_of_a_pid_namespace_of_the_workers_own():
    """Go on in a fork that is PID 1 of a fresh PID namespace; this process stays behind, waits, and exits with it.

    Each judge's fork into its run's PID namespace is followed by setns back
    into the worker's, which the kernel allows only into a PID namespace the
    worker's user namespace owns, and the sandbox's need not be (bwrap without
    root, in a container, refuses it: EPERM); one made here is. The process
    left behind holds nothing a run can reach (it is outside every run's
    namespaces) and ends when the worker does.
    """
    if UNSHARE(CLONE_NEWPID) != 0:
        raise SystemExit("the sandbox worker cannot make a PID namespace (%s): its sandbox must grant "
                         "CAP_SYS_ADMIN in the sandbox's own user namespace" % os.strerror(ctypes.get_errno()))
    pid = os.fork()
    if pid == 0:
        return
    while True:
        try:
            _, status = os.waitpid(pid, 0)
        except InterruptedError:
            continue
        os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def fork_in_a_fresh_pid_namespace():
    """os.fork(), with the child PID 1 of a PID namespace of its own; the caller's later forks are back in its own.

    Returns the child's pid in the parent, 0 in the child. Raises OSError if
    the namespace cannot be made or left.
    """
    if UNSHARE(CLONE_NEWPID) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWPID) failed")
    try:
        pid = os.fork()
    except BaseException:
        _back_in_the_workers_pid_namespace()
        raise
    if pid:
        _back_in_the_workers_pid_namespace()
    return pid


def _back_in_the_workers_pid_namespace():
    if SETNS(STATE.run_namespaces.worker_pid_namespace, CLONE_NEWPID) != 0:
        raise OSError(ctypes.get_errno(), "setns back into the worker's PID namespace failed")


def enter_run_namespaces():
    """The judge's first act: the run's own IPC, network and mount namespaces and /proc, then the run's filter.

    The judge is PID 1 of the run's PID namespace (fork_in_a_fresh_pid_namespace).
    Ends with CAP_SYS_ADMIN dropped and the run's filter stacked, both before
    the candidate and tester are forked; the judge's cwd is `/` (its old one
    is covered by the fresh tmpfs). Raises OSError if any step fails: the
    judge then ends without replying, and the worker retires.
    """
    run = STATE.run_namespaces
    os.close(run.worker_pid_namespace)
    if UNSHARE(RUN_FLAGS) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWNS) failed")
    for source, target, kind, flags, options in run.mounts:
        if MOUNT(source, target, kind, flags, options) != 0:
            raise OSError(ctypes.get_errno(), "mount of %s on %s failed" % ((kind or b"read-only").decode(), target.decode()))
    os.chdir("/")
    drop_capability(CAP_SYS_ADMIN)
    if PRCTL(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(run.filter), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")


def check_run_namespaces():
    """Make and leave one run's namespaces in a throwaway fork, as a judge will; SystemExit if it cannot.

    Said once at startup, with the reason, rather than by every run's judge.
    """
    read_end, write_end = os.pipe()
    try:
        pid = fork_in_a_fresh_pid_namespace()
    except OSError as error:
        os.close(read_end)
        os.close(write_end)
        raise SystemExit(
            "the sandbox worker cannot give each run a PID namespace of its own (%s); in a container, its "
            "seccomp profile must allow setns with CLONE_NEWPID (deploy/seccomp/coderunner.json)" % error
        ) from None
    if pid == 0:
        try:
            os.close(read_end)
            try:
                enter_run_namespaces()
                if os.getpid() != 1 or sorted(os.listdir("/proc")) != ["1", "self", "thread-self"]:
                    raise OSError(errno.EPERM, "the run's /proc shows more than the run's own processes")
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
