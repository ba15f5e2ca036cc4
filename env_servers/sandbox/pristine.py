"""What a run can leave in its sandbox after its processes die, how to see it, how to remove it.

Standard library only: this file is part of the sandbox worker's source (see
worker_script.py). A worker serves many runs, of many sessions, so
anything a run changes that outlives its processes would reach later runs.
A run's processes are all killed before its reply; what can remain is state
of the worker's namespaces, and a later run could read it directly (a file,
a queue) or through a counter it moved (the inode number of a new file, the
id of a new System V object, the pid of a new process):

  files, directories, their metadata   /tmp (the work dir in it), /dev/shm: a tmpfs each
  System V shm, queues, semaphores     the IPC namespace
  POSIX message queues                 the same; docker lists its own at /dev/mqueue
  processes and threads                the pid namespace (ns_last_pid)

Where runs have namespaces of their own (--run-namespaces, bwrap and docker: see
worker/run_namespaces.py), all four rows, and abstract unix sockets, are closed by
construction: the judge is PID 1 of the run's own PID namespace and gives
the run its own IPC, network and mount namespaces (fresh tmpfs mounts, its
own /proc) before any other process of the run exists, and the kernel frees
them, with every object, file, process and counter in them, when the run's
last process is gone. There the Baseline watches no directory, counts no
System V object or unix socket and reads no pid counter (each would be the
run's own, about to go): the judge passes no last pid. Elsewhere (docker)
the run shares the worker's namespaces and every check below is the only line.

`Baseline` is taken once, when the worker is pristine: each watched
directory's full stat (ctime changes with any entry made or removed below it,
xattrs or modes set on it; atime with any listing, once primed; an unnamed
O_TMPFILE inode, which changes no directory, is refused by the seccomp
filter), the number of System V objects in use (the kernel's own count:
no id counter can fool it), the number of unix sockets in the network
namespace (see unix_sockets), and, without run namespaces, the System V id
counters (ipc_objects.IdCounter: a probe object of each kind, made and
removed; the next one's id tells whether any was made since, kept or not)
and the last pid. After a run, `traces` compares; a run with any trace gets a
fresh worker (the caller's job), after `ipc_objects.remove_leftovers` has
removed what it can as a second line. Network counters and keyrings are out
of reach (the seccomp filter allows AF_UNIX sockets only and denies the
keyring calls); timers and locks die with the processes holding them.

`wipe` empties a directory of any depth without recursion, restoring the
permissions a run removed, and reports whether it managed.
"""

import os as _os
import stat as _stat

from env_servers.sandbox.ipc_objects import MQUEUE_DIR, SYSV_KINDS, IdCounter, read_proc_file, sysv_in_use

NS_LAST_PID = "/proc/sys/kernel/ns_last_pid"
UNIX_SOCKETS = "/proc/net/unix"  # every unix socket of this network namespace, one a line after a header


def _directory_state(path):
    try:
        info = _os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return (info.st_ino, info.st_mode, info.st_uid, info.st_gid, info.st_nlink, info.st_size,
            info.st_atime_ns, info.st_mtime_ns, info.st_ctime_ns)  # fmt: skip


def last_pid():
    try:
        return int(read_proc_file(NS_LAST_PID))
    except (OSError, ValueError):
        return None


def unix_sockets():
    """How many unix sockets exist in this process's network namespace, whoever holds them.

    A socket whose last reference is a message in flight (its fd sent over a
    socket that is itself only in flight) outlives every process of the run,
    abstract name included, until the kernel's unix garbage collector runs,
    which may be long after: such a name is a channel to the next run.
    """
    return max(0, read_proc_file(UNIX_SOCKETS).count(b"\n") - 1)


class Baseline:
    """The worker's pristine state, taken once; `traces` says what a run changed since.

    With `run_namespaces`, `traces` runs in the run's own namespaces (the
    judge's), which die with the run: no System V object or unix socket is
    counted and no id counter probed there (the worker's are out of the run's
    reach), and the caller watches no directory under the run's fresh tmpfs mounts.
    """

    def __init__(self, directories, run_namespaces=False):
        self.directories = [d for d in dict.fromkeys(directories) if d and _os.path.isdir(d)]
        if _os.path.ismount(MQUEUE_DIR) and not run_namespaces:  # else each run has a queue filesystem of its own
            self.directories.append(MQUEUE_DIR)
        for directory in self.directories:  # prime atime: later listings leave it (relatime)
            try:
                _os.listdir(directory)
            except OSError:
                pass
        self.states = [_directory_state(d) for d in self.directories]
        self.sysv_in_use = None if run_namespaces else sysv_in_use()
        self.unix_sockets = None if run_namespaces else unix_sockets()
        self.counters = [] if run_namespaces else [c for c in map(IdCounter, SYSV_KINDS) if c.last is not None]

    def consumed_probes(self):
        """A clean run's check probed each kind once: the next check expects the ids after those."""
        for counter in self.counters:
            counter.last = counter.expected()

    def traces(self, expected_last_pid):
        """What a run left: a list naming each kind of trace (empty when the worker is pristine again).

        `expected_last_pid` is the last process the machinery itself started
        (the judge's candidate or tester); any later pid means the run started
        processes or threads. System V objects are counted, whatever their ids,
        and each kind's id counter probed once (see consumed_probes), so a run
        that wound a counter back to where the probe looks still shows the
        object it kept. Never raises.
        """
        found = []
        try:
            for directory, state in zip(self.directories, self.states):
                if _directory_state(directory) != state:
                    found.append("files" if directory != MQUEUE_DIR else "POSIX message queues")
            if expected_last_pid is not None and last_pid() != expected_last_pid:
                found.append("processes")
            if self.sysv_in_use is not None and sysv_in_use() != self.sysv_in_use:
                found.append("System V IPC")
            if self.unix_sockets is not None and unix_sockets() != self.unix_sockets:
                found.append("unix sockets")
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
