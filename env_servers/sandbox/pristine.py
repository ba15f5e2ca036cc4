"""What a run can leave in its sandbox after its processes die, how to see it, how to remove it.

Standard library only: this file is part of the sandbox worker's source (see
channel.worker_source). A worker serves many runs, of many sessions, so
anything a run changes that outlives its processes would reach later runs.
A run's processes are all killed before its reply; what can remain is state
of the worker's namespaces, and a later run could read it directly (a file,
a queue) or through a counter it moved (the inode number of a new file, the
id of a new System V object, the pid of a new process):

  files, directories, their metadata   /tmp (the work dir in it), /dev/shm: a tmpfs each
  POSIX message queues                 their filesystem, mounted at /dev/mqueue
  System V shm, queues, semaphores     the IPC namespace
  processes and threads                the pid namespace (ns_last_pid)

`Baseline` is taken once, when the worker is pristine: each watched
directory's full stat (ctime changes with any entry made or removed below it,
xattrs or modes set on it; atime with any listing, once primed), the System V
id counters (a probe object of each kind, made and removed: the next one's id
tells whether any was made since) and the last pid. After a run, `traces`
compares; a run with any trace gets a fresh worker (the caller's job), after
`remove_leftovers` has removed what it can as a second line. Network counters
and keyrings are out of reach (the seccomp filter allows AF_UNIX sockets
only and denies the keyring calls); abstract sockets, timers and locks die with
the processes holding them.

`wipe` empties a directory of any depth without recursion, restoring the
permissions a run removed, and reports whether it managed.
"""

import ctypes as _ctypes
import os as _os
import stat as _stat

PROC_SYSVIPC = "/proc/sysvipc/"
NS_LAST_PID = "/proc/sys/kernel/ns_last_pid"
MQUEUE_DIR = "/dev/mqueue"
IPC_PRIVATE, IPC_RMID = 0, 0
SYSV_KINDS = ("shm", "msg", "sem")
SEQ_MULTIPLIERS = (1 << 15, 1 << 24)  # IPCMNI, and IPCMNI with the ipcmni_extend boot option
MIN_ID_CYCLE = 64  # ipc_min_cycle: ids cycle through this many slots while none is in use

_LIBC = _ctypes.CDLL(None, use_errno=True)
_SHMGET, _SHMCTL = _LIBC.shmget, _LIBC.shmctl  # looked up once: forks then find them made
_MSGGET, _MSGCTL = _LIBC.msgget, _LIBC.msgctl
_SEMGET, _SEMCTL = _LIBC.semget, _LIBC.semctl


def _read_all(path):
    """A whole (proc) file, read to its end: one read returns a page at most."""
    fd = _os.open(path, _os.O_RDONLY)
    try:
        chunks = []
        while True:
            chunk = _os.read(fd, 1 << 16)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    finally:
        _os.close(fd)


def sysv_ids(kind):
    """The ids of every System V object of one kind (shm, msg, sem) in this IPC namespace."""
    try:
        rows = _read_all(PROC_SYSVIPC + kind).splitlines()[1:]
    except OSError:
        return []
    ids = []
    for row in rows:
        fields = row.split()
        if len(fields) > 1 and fields[1].isdigit():
            ids.append(int(fields[1]))
    return ids


def _remove_sysv(kind, ident):
    if kind == "shm":
        return _SHMCTL(ident, IPC_RMID, None) == 0
    if kind == "msg":
        return _MSGCTL(ident, IPC_RMID, None) == 0
    return _SEMCTL(ident, 0, IPC_RMID) == 0


def remove_sysv_objects():
    """Remove every System V object this process may remove; the number left."""
    left = 0
    for kind in SYSV_KINDS:
        for ident in sysv_ids(kind):
            if not _remove_sysv(kind, ident):
                left += 1
    return left


def mqueue_names():
    try:
        return _os.listdir(MQUEUE_DIR) if _os.path.ismount(MQUEUE_DIR) else []
    except OSError:
        return []


def remove_mqueues():
    """Unlink every POSIX message queue (the sticky mqueue root lets the owner or CAP_FOWNER); the number left."""
    for name in mqueue_names():
        try:
            _os.unlink(_os.path.join(MQUEUE_DIR, name))
        except OSError:
            pass
    return len(mqueue_names())


def remove_leftovers(other_uids=()):
    """Remove the System V objects and POSIX queues of this IPC namespace, whoever owns them.

    Removing a System V object takes its owner or creator (or CAP_SYS_ADMIN,
    which no sandbox process has), so after this process's own pass a
    short-lived child removes them as each uid in `other_uids` (the
    candidate's): the caller never changes its own credentials. Returns how
    many objects are left.
    """
    remove_sysv_objects()
    remove_mqueues()
    for uid in other_uids:
        if not any(sysv_ids(kind) for kind in SYSV_KINDS):
            break
        pid = _os.fork()
        if pid == 0:
            try:
                _os.setresuid(uid, uid, uid)
                remove_sysv_objects()
            finally:
                _os._exit(0)
        _wait_for(pid)
    return sum(len(sysv_ids(kind)) for kind in SYSV_KINDS) + len(mqueue_names())


def _wait_for(pid):
    while True:
        try:
            _os.waitpid(pid, 0)
            return
        except InterruptedError:
            continue
        except ChildProcessError:
            return


# ---------------------------------------------------------------- traces


def _probe_id(kind):
    """Make one private object of `kind` and remove it at once; its id (None if none could be made)."""
    if kind == "shm":
        ident = _SHMGET(IPC_PRIVATE, 1, 0o600)
    elif kind == "msg":
        ident = _MSGGET(IPC_PRIVATE, 0o600)
    else:
        ident = _SEMGET(IPC_PRIVATE, 1, 0o600)
    if ident < 0:
        return None
    _remove_sysv(kind, ident)
    return ident


class IdCounter:
    """Where a kind's System V id counter stands, and where it must be after each probe alone.

    An id is seq * multiplier + slot. While no object is in use the slot cycles
    through a few values (ipc_min_cycle) and seq grows by one at each wrap
    (ipc_idr_alloc); the multiplier depends on a boot option. Both are learnt
    by probing until the ids wrap once.
    """

    def __init__(self, kind):
        self.kind = kind
        self.multiplier = self.cycle = None
        previous = _probe_id(kind)
        for _ in range(4 * MIN_ID_CYCLE):
            if previous is None:
                break
            ident = _probe_id(kind)
            if ident is None or ident != previous + 1:
                self._learn(previous, ident)
                previous = ident
                break
            previous = ident
        self.last = previous if self.cycle else None

    def _learn(self, previous, ident):
        for multiplier in SEQ_MULTIPLIERS:
            if ident is not None and ident % multiplier == 0 and ident // multiplier == previous // multiplier + 1:
                self.multiplier, self.cycle = multiplier, previous % multiplier + 1
                return

    def expected(self):
        slot = self.last % self.multiplier
        return self.last + 1 if slot + 1 < self.cycle else (self.last // self.multiplier + 1) * self.multiplier

    def probe_follows(self):
        """Probe once; True if nothing was made since the last probe (the counter just moved on by one)."""
        return _probe_id(self.kind) == self.expected()


def _directory_state(path):
    try:
        info = _os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return (info.st_ino, info.st_mode, info.st_uid, info.st_gid, info.st_nlink, info.st_size,
            info.st_atime_ns, info.st_mtime_ns, info.st_ctime_ns)  # fmt: skip


def last_pid():
    try:
        return int(_read_all(NS_LAST_PID))
    except (OSError, ValueError):
        return None


class Baseline:
    """The worker's pristine state, taken once; `traces` says what a run changed since."""

    def __init__(self, directories):
        self.directories = [d for d in dict.fromkeys(directories) if d and _os.path.isdir(d)]
        if _os.path.ismount(MQUEUE_DIR):
            self.directories.append(MQUEUE_DIR)
        for directory in self.directories:  # prime atime: later listings leave it (relatime)
            try:
                _os.listdir(directory)
            except OSError:
                pass
        self.states = [_directory_state(d) for d in self.directories]
        self.counters = [counter for counter in map(IdCounter, SYSV_KINDS) if counter.last is not None]

    def consumed_probes(self):
        """A clean run's check probed each kind once: the next check expects the ids after those."""
        for counter in self.counters:
            counter.last = counter.expected()

    def traces(self, expected_last_pid):
        """What a run left: a list naming each kind of trace (empty when the worker is pristine again).

        `expected_last_pid` is the last process the machinery itself started
        (the judge's candidate or tester); any later pid means the run started
        processes or threads. Each System V kind is probed once (see
        consumed_probes). Never raises.
        """
        found = []
        try:
            for directory, state in zip(self.directories, self.states):
                if _directory_state(directory) != state:
                    found.append("files" if directory != MQUEUE_DIR else "POSIX message queues")
            if expected_last_pid is not None and last_pid() != expected_last_pid:
                found.append("processes")
            if not all([counter.probe_follows() for counter in self.counters]):
                found.append("System V IPC")
        except BaseException as error:  # a check that cannot be made counts as a trace
            found.append("unknown (%s)" % type(error).__name__)
        return sorted(set(found))


# ---------------------------------------------------------------- files


def wipe(directory):
    """Empty `directory` (kept itself), however deep, wide or locked down its tree; True if it is empty.

    Iterative, relative to one open directory at a time (no recursion, no path
    length limit): each directory is listed once, its files unlinked and its
    subdirectories entered in turn (made searchable and writable first), then
    removed on the way back up through "..". Never raises.
    """
    flags = _os.O_RDONLY | _os.O_DIRECTORY | _os.O_NOFOLLOW | _os.O_CLOEXEC
    try:
        _os.chmod(directory, _stat.S_IRWXU | (_os.stat(directory).st_mode & 0o7777))
    except OSError:
        pass  # not ours (a root-owned sticky /dev/shm): our files in it are still removable
    try:
        current = _os.open(directory, flags)
    except OSError:
        return False
    failed = False
    pending = []  # per level entered: the subdirectories still to empty there
    entered = []  # the names of the directories entered, one per level
    try:
        pending.append(_clear_files(current))
        while True:
            if pending[-1]:
                name = pending[-1].pop()
                try:
                    _os.chmod(name, _stat.S_IRWXU, dir_fd=current)
                except OSError:
                    pass
                try:
                    child = _os.open(name, flags, dir_fd=current)
                except OSError:
                    failed = True
                    continue
                _os.close(current)
                current = child
                entered.append(name)
                pending.append(_clear_files(current))
                continue
            pending.pop()
            if not entered:
                break
            parent = _os.open("..", flags, dir_fd=current)
            _os.close(current)
            current = parent
            try:
                _os.rmdir(entered.pop(), dir_fd=current)
            except OSError:
                failed = True
        return not failed and not _os.listdir(current)
    except BaseException:
        return False
    finally:
        try:
            _os.close(current)
        except OSError:
            pass


def _clear_files(fd):
    """Unlink everything in directory `fd` but non-empty subdirectories; those are returned."""
    subdirectories = []
    with _os.scandir(fd) as entries:
        listed = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]
    for name, is_directory in listed:
        try:
            if is_directory:
                _os.rmdir(name, dir_fd=fd)
            else:
                _os.unlink(name, dir_fd=fd)
        except OSError:
            if is_directory:
                subdirectories.append(name)
    return subdirectories
