"""The System V objects and POSIX message queues of the sandbox's IPC namespace: listing, removing, probing.

Standard library only: part of the sandbox worker's script (see
worker_script.py). A run's processes die before its reply, but IPC objects
outlive them in the namespace they were made in, and so does the counter
each System V kind draws its ids from (the next object's id tells whether any
was made since). Where runs have IPC namespaces of their own (bwrap), that
namespace dies with the run and these are second lines; elsewhere (docker)
they are the only line. `remove_leftovers` removes every object, whoever owns
it; `sysv_in_use` counts the objects of every kind that exist; `IdCounter`
learns where a kind's counter stands, so pristine.Baseline can tell by one
probe whether a run made any.
"""

import ctypes as _ctypes
import os as _os

PROC_SYSVIPC = "/proc/sysvipc/"
MQUEUE_DIR = "/dev/mqueue"
IPC_PRIVATE, IPC_RMID = 0, 0
SYSV_KINDS = ("shm", "msg", "sem")
SEQ_MULTIPLIERS = (1 << 15, 1 << 24)  # IPCMNI, and IPCMNI with the ipcmni_extend boot option
MIN_ID_CYCLE = 64  # ipc_min_cycle: ids cycle through this many slots while none is in use
MSG_INFO, SHM_INFO, SEM_INFO = 12, 14, 19
# Where each kind's *_INFO answer holds the number of its objects in use: msginfo.msgpool,
# shm_info.used_ids, seminfo.semusz (ints; offsets in bytes).
IN_USE_OFFSETS = {"msg": 0, "shm": 0, "sem": 7 * 4}

_LIBC = _ctypes.CDLL(None, use_errno=True)
_SHMGET, _SHMCTL = _LIBC.shmget, _LIBC.shmctl  # looked up once: forks then find them made
_MSGGET, _MSGCTL = _LIBC.msgget, _LIBC.msgctl
_SEMGET, _SEMCTL = _LIBC.semget, _LIBC.semctl


def read_proc_file(path):
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
        rows = read_proc_file(PROC_SYSVIPC + kind).splitlines()[1:]
    except OSError:
        return []
    ids = []
    for row in rows:
        fields = row.split()
        if len(fields) > 1 and fields[1].isdigit():
            ids.append(int(fields[1]))
    return ids


def sysv_in_use():
    """How many System V objects of any kind, of any owner, exist in this IPC namespace (-1: unknown).

    The kernel's own count (msgctl MSG_INFO, shmctl SHM_INFO, semctl
    SEM_INFO): three syscalls, no listing to parse, no permission needed, and
    no id counter it depends on.
    """
    total = 0
    for kind in SYSV_KINDS:
        answer = _ctypes.create_string_buffer(128)
        if kind == "msg":
            status = _MSGCTL(0, MSG_INFO, answer)
        elif kind == "shm":
            status = _SHMCTL(0, SHM_INFO, answer)
        else:
            status = _SEMCTL(0, 0, SEM_INFO, answer)
        if status < 0:
            return -1
        total += int.from_bytes(answer.raw[IN_USE_OFFSETS[kind] : IN_USE_OFFSETS[kind] + 4], "little", signed=True)
    return total


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
