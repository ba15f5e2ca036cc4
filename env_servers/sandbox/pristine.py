"""What a run can leave in its sandbox after its processes die, how to see it, how to remove it.

Standard library only: this file is part of the sandbox worker's source (see
worker_script.py). A worker serves many runs, of many sessions, so
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
id counters (ipc_objects.IdCounter: a probe object of each kind, made and
removed; the next one's id tells whether any was made since) and the last pid. After a run, `traces`
compares; a run with any trace gets a fresh worker (the caller's job), after
`ipc_objects.remove_leftovers` has removed what it can as a second line. Network counters
and keyrings are out of reach (the seccomp filter allows AF_UNIX sockets
only and denies the keyring calls); abstract sockets, timers and locks die with
the processes holding them.

`wipe` empties a directory of any depth without recursion, restoring the
permissions a run removed, and reports whether it managed.
"""

import os as _os
import stat as _stat

from env_servers.sandbox.ipc_objects import MQUEUE_DIR, SYSV_KINDS, IdCounter, read_proc_file

NS_LAST_PID = "/proc/sys/kernel/ns_last_pid"


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
