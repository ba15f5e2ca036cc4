"""What the worker's processes may do: capabilities, uids, dumpability, signals and the seccomp filter."""

import ctypes
import errno
import os
import signal
import _signal

from env_servers.sandbox.worker.state import STATE

LIBC = ctypes.CDLL(None, use_errno=True)  # made once here, used by every fork
CAPSET, CAPGET, PRCTL = LIBC.capset, LIBC.capget, LIBC.prctl  # looked up once: each fork finds them made
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
CAP_KILL = 5
AF_UNIX = 1
O_TMPFILE_BIT = 0o20000000  # __O_TMPFILE (x86_64, arm64): an unnamed tmpfs inode, which moves no directory


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


_CAP_HEADER = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
_ONLY_KILL = (_CapData * 2)()
_ONLY_KILL[0].effective = _ONLY_KILL[0].permitted = 1 << CAP_KILL


def drop_capability(number):
    """Remove one capability from this process's effective and permitted sets (a fork keeps the rest)."""
    data = (_CapData * 2)()
    if CAPGET(ctypes.byref(_CAP_HEADER), data) != 0:
        raise OSError(ctypes.get_errno(), "capget failed")
    word, bit = divmod(number, 32)
    data[word].effective &= ~(1 << bit) & 0xFFFFFFFF
    data[word].permitted &= ~(1 << bit) & 0xFFFFFFFF
    data[word].inheritable &= ~(1 << bit) & 0xFFFFFFFF
    if CAPSET(ctypes.byref(_CAP_HEADER), data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


def keep_only(number):
    """Keep one capability in this process's effective and permitted sets, none inheritable, and drop the rest."""
    data = (_CapData * 2)()
    word, bit = divmod(number, 32)
    data[word].effective = data[word].permitted = 1 << bit
    if CAPSET(ctypes.byref(_CAP_HEADER), data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


LANDLOCK_CREATE_RULESET, LANDLOCK_ADD_RULE, LANDLOCK_RESTRICT_SELF = 444, 445, 446  # x86_64 and arm64 alike
LANDLOCK_ACCESS_FS_WRITE_FILE, LANDLOCK_RULE_PATH_BENEATH = 1 << 1, 1
PR_SET_NO_NEW_PRIVS = 38
WRITABLE_PLACES = (b"/tmp", b"/dev")  # the run's own tmpfs mounts, its ptys and /dev/null; all else is read-only


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def write_only_where_a_run_may():
    """From now on this process (and its forks) opens files for writing only beneath WRITABLE_PLACES (Landlock).

    Everything else a run sees is read-only already but /proc, where a process may write its own files:
    /proc/self/autogroup's nice is its worker's session's, kept from run to run, and every write there is
    rate-limited by one host-wide clock (round six: both carried bits between runs). Where the kernel has
    no Landlock this does nothing.
    """
    handled = ctypes.c_uint64(LANDLOCK_ACCESS_FS_WRITE_FILE)
    ruleset = LIBC.syscall(LANDLOCK_CREATE_RULESET, ctypes.byref(handled), ctypes.sizeof(handled), 0)
    if ruleset < 0:
        return
    try:
        for place in WRITABLE_PLACES:
            try:
                fd = os.open(place, os.O_PATH | os.O_CLOEXEC)
            except FileNotFoundError:
                continue
            try:
                rule = _PathBeneath(LANDLOCK_ACCESS_FS_WRITE_FILE, fd)
                if LIBC.syscall(LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH, ctypes.byref(rule), 0) != 0:
                    raise OSError(ctypes.get_errno(), "landlock_add_rule failed")
            finally:
                os.close(fd)
        PRCTL(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        if LIBC.syscall(LANDLOCK_RESTRICT_SELF, ruleset, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)


def keep_only_kill():
    """Drop every capability but CAP_KILL (the judge must end the candidate, which has another uid)."""
    if CAPSET(ctypes.byref(_CAP_HEADER), _ONLY_KILL) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


def become_candidate_uid():
    """The candidate's (and tester's) first act when it has a uid of its own: switch to it, losing every capability."""
    os.setgroups([])
    os.setresgid(STATE.candidate_uid, STATE.candidate_uid, STATE.candidate_uid)
    os.setresuid(STATE.candidate_uid, STATE.candidate_uid, STATE.candidate_uid)


def die_with_parent(parent):
    """Have the kernel SIGKILL this process when `parent`, its parent, ends; exit at once if it already has.

    In a sandbox the supervisor is PID 1, and its namespace ends with it anyway;
    under the process backend this keeps a judge from outliving its supervisor,
    and a candidate or tester from outliving its judge. A change of uid clears
    it: a process that switches uid calls this afterwards. A judge that is
    PID 1 of its run's PID namespace sees its parent as 0 (outside the
    namespace): there the supervisor is the sandbox's PID 1, whose end ends
    every namespace below it.
    """
    PRCTL(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() not in (parent, 0):
        os._exit(0)


SUPERVISOR_IGNORES = (
    "SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGPIPE", "SIGALRM",
    "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH",
)  # fmt: skip
IGNORED_NUMBERS = tuple(int(getattr(signal, name)) for name in SUPERVISOR_IGNORES)


def restore_default_signals():
    """Undo the supervisor's ignoring: back to what a fresh Python interpreter has."""
    for number in IGNORED_NUMBERS:  # _signal, not signal: no enum work in every fork
        _signal.signal(number, _signal.SIG_DFL)
    _signal.signal(int(signal.SIGINT), _signal.default_int_handler)
    _signal.signal(int(signal.SIGPIPE), _signal.SIG_IGN)
    _signal.signal(int(signal.SIGXFSZ), _signal.SIG_IGN)


DENIED_SYSCALLS = (
    "ptrace", "process_vm_readv", "process_vm_writev", "perf_event_open", "bpf", "keyctl",
    "add_key", "request_key", "mount", "umount2", "move_mount", "open_tree", "fsopen", "fsmount",
    "fspick", "mount_setattr", "pivot_root", "chroot", "unshare", "setns", "kexec_load",
    "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot", "swapon", "swapoff",
    "acct", "quotactl", "syslog", "userfaultfd", "io_uring_setup", "io_uring_enter",
    "io_uring_register", "open_by_handle_at", "name_to_handle_at", "lookup_dcookie", "fanotify_init",
    "process_madvise", "pidfd_getfd", "kcmp", "settimeofday", "clock_settime", "clock_adjtime",
    "adjtimex", "vhangup", "uselib", "personality", "inotify_init", "inotify_init1", "inotify_add_watch",
    "sysinfo",  # the host's process count and memory (see host_counters.py)
    "setsid",  # each takes the next of one host-wide counter, the id /proc/self/autogroup shows
    "eventfd", "eventfd2",  # ids from one host-wide allocator (lowest free), shown in each one's fdinfo
    "memfd_create", "memfd_secret", "shmat",  # files of the host's one shmem mount (SHARED_ANONYMOUS, below)
    "mq_open",  # POSIX queues' bytes count against the uid at every level of the user namespaces above a run,
    # host root's included: one run's queues set what another run, in any bwrap sandbox, can still make
    # (round seven: 6 bits between overlapping runs, and one run could leave every other none)
)  # fmt: skip
# socket() with any family but AF_UNIX is denied as well: no network counter (packets, errors) can carry
# anything from one run to the next, even inside the sandbox's own network namespace.
# Locks, leases and watches belong to inodes, and the files every sandbox binds (the host's /usr, /dev's
# nodes) are the host's own: a lock one run holds, or a file it opens under another run's watch, a run in
# another sandbox sees at once. No run takes or tests a lock or watches a file: flock and inotify are
# denied (fanotify above), and so are fcntl's record locks, open-file-description locks, leases and
# directory notices (F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW, F_SETLEASE,
# F_GETLEASE, F_NOTIFY).
SHARED_FILE_COMMANDS = (5, 6, 7, 36, 37, 38, 1024, 1025, 1026)
# Host-wide counters a run could move and another read, each through one argument value (found attacking the
# sandbox): the socket cookie and the network namespace's cookie (SOL_SOCKET's SO_COOKIE, SO_NETNS_COOKIE);
# the CPU clock of another process (a negative clock id names a pid's or a thread's: the tester's CPU time
# between two calls told a Score run from a Step); transparent huge pages, which a run could make of the
# pages of the in-memory /usr every run maps (MADV_COLLAPSE, or MADV_HUGEPAGE where khugepaged collapses
# shared memory) and a later run see in its smaps; and KSM's page merging (MADV_MERGEABLE, PR_SET_MEMORY_MERGE).
SOL_SOCKET, SOCKET_COUNTER_OPTIONS = 1, (57, 71)
CLOCK_ID_CALLS = ("clock_gettime", "clock_getres", "clock_nanosleep", "timer_create")
NEGATIVE_INT = 0x80000000  # the sign bit of a 32-bit argument
SHARED_PAGE_ADVICE = (12, 14, 25)  # MADV_MERGEABLE, MADV_HUGEPAGE, MADV_COLLAPSE
PR_SET_MEMORY_MERGE = 67
# The host's one internal shmem mount numbers every memfd, System V segment and shared anonymous mapping
# from one counter in per-CPU batches that nothing else moves (found attacking the sandbox: 20 bits crossed
# from a run to the next, and from docker to bwrap, through memfds' inode numbers, exact). No such file
# reaches a run's descriptors or address space, so none shows its number: memfd_create and shmat are
# denied, and so is mmap with MAP_SHARED (or MAP_SHARED_VALIDATE) and MAP_ANONYMOUS; a shared mapping of
# /dev/zero is one too, so each run has /dev/full (zeros to read, no mapping) bound over /dev/zero
# (run_namespaces.py). shmget alone may still make a segment: nothing in the run can read its number.
SHARED_ANONYMOUS = ((0x2F, 0x21), (0x2F, 0x23))  # (mask, value) of mmap's flags: MAP_TYPE | MAP_ANONYMOUS
# Namespaces and mounts are numbered by host-wide 64-bit counters (newer kernels show them: NS_GET_ID and the
# other nsfs ioctls, statx's STATX_MNT_ID_UNIQUE, listmount and statmount). A run cannot move them, but the
# gap between its namespaces' ids and its sandbox's told how many runs its worker had served (found
# attacking the sandbox). They are refused as a kernel without them would refuse them.
NSFS_IOCTL = (0xFF00, 0xB700)  # (mask, value) of ioctl's request: type 0xb7, every nsfs ioctl
STATX_MNT_ID_UNIQUE = 0x4000
LOW_32 = 0xFFFFFFFF  # int arguments: the kernel reads the low 32 bits of the register, so the filter must too
CLONE_NEW_FLAGS = (0x00000080, 0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)


def harden(use_seccomp, setup_calls=()):
    """Make this process (and every fork of it) non-dumpable, deaf to signals and, optionally, filtered.

    `setup_calls` goes to load_seccomp_filter. Returns whether the seccomp
    filter is loaded.
    """
    if PRCTL(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")
    for number in IGNORED_NUMBERS:
        _signal.signal(number, _signal.SIG_IGN)
    if not use_seccomp:
        return False
    load_seccomp_filter(setup_calls)
    return True


def denied_unless_one_of(values):
    """(mask, value) pairs such that an argument matches one (arg & mask == value) unless it is one of `values`.

    libseccomp allows one comparison per argument in a rule, so "none of
    these values" is spelt as rules that each deny a pattern: any of the 64
    bits outside the values' union set, or a combination of the union's bits
    that is not one of the values. Meant for flag words of a few bits.
    """
    union = 0
    for value in values:
        union |= value
    inside = [1 << bit for bit in range(64) if union & (1 << bit)]
    patterns = [(1 << bit, 1 << bit) for bit in range(64) if not union & (1 << bit)]
    for chosen in range(1 << len(inside)):
        combination = sum(flag for index, flag in enumerate(inside) if chosen & (1 << index))
        if combination not in values:
            patterns.append((union, combination))
    return patterns


def load_seccomp_filter(setup_calls=()):
    """Load the filter this process and every fork of it keep (libseccomp through python3-seccomp).

    It answers EPERM to every syscall in DENIED_SYSCALLS, to clone with a
    namespace flag, to socket() for any family but AF_UNIX, to every file
    lock and watch (flock, fcntl's SHARED_FILE_COMMANDS), to reading a socket's
    cookies, to huge-page and merging advice, to shared anonymous mappings
    (SHARED_ANONYMOUS), EINVAL to another process's CPU
    clock (the host-wide counters above), and ENOSYS to
    clone3 (whose flags it cannot see), so the C library falls back to clone.
    Opening with O_TMPFILE gets EOPNOTSUPP (Python's tempfile falls back to a
    named file): an unnamed tmpfs file changes no directory, so it would move
    the tmpfs inode counter unseen by the pristine checks. openat2, whose flags
    the filter cannot see, gets ENOSYS. Syscalls of another architecture
    (e.g. 32-bit int 0x80) kill the process.

    `setup_calls` is ((name, argument index, value), ...): each of those
    denied syscalls is let through when that one argument is exactly one of
    the values given for it, and denied otherwise. A run's namespaces are
    made this way (run_namespaces.py), by the supervisor and a judge that
    stacks a filter denying them again before any process of its run exists.
    """
    try:
        import seccomp
    except ImportError:
        raise SystemExit(
            "the sandbox needs libseccomp's Python binding in the sandbox's python3: "
            "install the Debian package python3-seccomp (`make setup` does)"
        ) from None
    denied = seccomp.ERRNO(errno.EPERM)
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    let_through = {}
    for name, index, value in setup_calls:
        let_through.setdefault(name, (index, []))[1].append(value)
    for name in DENIED_SYSCALLS:
        try:
            if name in let_through:
                index, values = let_through[name]
                if len(values) == 1:
                    rules.add_rule(denied, name, seccomp.Arg(index, seccomp.NE, values[0]))
                for mask, masked in denied_unless_one_of(values) if len(values) > 1 else ():
                    rules.add_rule(denied, name, seccomp.Arg(index, seccomp.MASKED_EQ, mask, masked))
            else:
                rules.add_rule(denied, name)
        except (RuntimeError, ValueError, OSError):
            pass  # a syscall this architecture does not have
    for flag in CLONE_NEW_FLAGS:
        rules.add_rule(denied, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    rules.add_rule(denied, "socket", seccomp.Arg(0, seccomp.NE, AF_UNIX))
    rules.add_rule(denied, "flock")
    for command in SHARED_FILE_COMMANDS:  # compared on the low 32 bits: fcntl reads only those
        rules.add_rule(denied, "fcntl", seccomp.Arg(1, seccomp.MASKED_EQ, LOW_32, command))
    for option in SOCKET_COUNTER_OPTIONS:
        rules.add_rule(denied, "getsockopt", seccomp.Arg(1, seccomp.MASKED_EQ, LOW_32, SOL_SOCKET),
                       seccomp.Arg(2, seccomp.MASKED_EQ, LOW_32, option))
    for name in CLOCK_ID_CALLS:  # EINVAL, as for a clock of no process: a run cannot tell it was refused
        rules.add_rule(seccomp.ERRNO(errno.EINVAL), name, seccomp.Arg(0, seccomp.MASKED_EQ, NEGATIVE_INT, NEGATIVE_INT))
    for advice in SHARED_PAGE_ADVICE:
        rules.add_rule(denied, "madvise", seccomp.Arg(2, seccomp.MASKED_EQ, LOW_32, advice))
    rules.add_rule(denied, "prctl", seccomp.Arg(0, seccomp.MASKED_EQ, LOW_32, PR_SET_MEMORY_MERGE))
    for mask, flags in SHARED_ANONYMOUS:
        rules.add_rule(denied, "mmap", seccomp.Arg(3, seccomp.MASKED_EQ, mask, flags))
    rules.add_rule(seccomp.ERRNO(errno.ENOTTY), "ioctl", seccomp.Arg(1, seccomp.MASKED_EQ, *NSFS_IOCTL))
    rules.add_rule(seccomp.ERRNO(errno.EINVAL), "statx",
                   seccomp.Arg(3, seccomp.MASKED_EQ, STATX_MNT_ID_UNIQUE, STATX_MNT_ID_UNIQUE))
    for name in ("listmount", "statmount"):
        try:
            rules.add_rule(seccomp.ERRNO(errno.ENOSYS), name)
        except (RuntimeError, ValueError, OSError):
            pass  # a libseccomp that does not know them yet: no kernel it runs on has them either
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    unsupported = seccomp.ERRNO(errno.EOPNOTSUPP)
    for name, flags_argument in (("open", 1), ("openat", 2)):
        try:
            rules.add_rule(unsupported, name, seccomp.Arg(flags_argument, seccomp.MASKED_EQ, O_TMPFILE_BIT, O_TMPFILE_BIT))
        except (RuntimeError, ValueError, OSError):
            pass  # no open(2) on this architecture
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "openat2")
    rules.load()
