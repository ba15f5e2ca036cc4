"""The sandbox's read-only /usr, copied once into memory: no page-cache state a run can change or read.

Which pages of a file the kernel holds in its page cache is state every
process on the host shares. A run that evicts pages of a file every sandbox
binds (posix_fadvise DONTNEED) and reads back the pages it chooses leaves bits
there; a later run, on any worker or pool, or an overlapping one, reads them
exactly (preadv2 with RWF_NOWAIT, the major-fault count around each page it
touches, fault-around seen in /proc/self/pagemap). Found attacking the sandbox:
64-bit secrets crossed whole. Denying the probes cannot close it (plain reads
load pages, and there is always another way to tell a cached page).

So the sandbox binds no file of the host's disk: bwrap's /usr is this tree, a
copy on tmpfs of what the sandbox's Python needs (its interpreter, standard
library and the libseccomp binding, a few programs, and the shared libraries
they load). Every tmpfs page is always resident: nothing a run reads or
evicts changes anything another run can see. A host with swap could page the
tree out under memory pressure; these hosts have none (the sandbox README).

`memory_tree(python)` builds the tree once per host (per interpreter and file
list: its directory's name carries their digest) and returns its directory,
or None where no tmpfs has room (then the caller binds the host's /usr and
says what that leaves open). The tree stays for the host's later sandboxes;
removing `lats-sandbox-usr-*` from its place frees the memory.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import re
import shutil
import subprocess
import tempfile

log = logging.getLogger(__name__)

PROGRAMS = ("sh", "sleep", "cat", "echo", "ls", "true", "false", "env")  # what a program may start besides python
LEFT_OUT = {"test", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3"}  # stdlib parts no run needs
PLACES = ("LATS_SANDBOX_TREE_DIR", "/dev/shm", "/run", "/tmp")  # an environment variable, then tmpfs mounts
# (a place must be a tmpfs that allows executing, with ROOM_BYTES free, writable by this process)
ROOM_BYTES = 128 << 20  # the tree is about 75 MB
LIBRARY = re.compile(r"(?:^|=>)\s*(/\S+)\s+\(0x")
TREE_VERSION = 1


def _mount(path: str) -> tuple[str, set[str]]:
    """(file system type, mount options) of the mount that holds `path` (("", set()) if unknown)."""
    best, found = "", ("", set())
    try:
        with open("/proc/self/mounts") as handle:
            for line in handle:
                fields = line.split()
                point = fields[1].replace("\\040", " ")
                if (path == point or path.startswith(point.rstrip("/") + "/")) and len(point) >= len(best):
                    best, found = point, (fields[2], set(fields[3].split(",")))
    except OSError:
        pass
    return found


def _mount_type(path: str) -> str:
    return _mount(path)[0]


def _place() -> str | None:
    for candidate in PLACES:
        where = os.environ.get(candidate, "") if candidate.startswith("LATS_") else candidate
        kind, options = _mount(os.path.realpath(where)) if where and os.path.isdir(where) else ("", set())
        if kind != "tmpfs" or "noexec" in options:  # bwrap executes the tree's python from there
            continue
        stats = os.statvfs(where)
        if stats.f_bavail * stats.f_frsize >= ROOM_BYTES and os.access(where, os.W_OK):
            return where
    return None


@functools.cache  # a host fact for this process's life: each launcher need not start the interpreter again
def _python_paths(python: str) -> dict:
    script = ("import json, os, sys, sysconfig, seccomp; print(json.dumps({'executable': os.path.realpath("
              "sys.executable), 'stdlib': sysconfig.get_path('stdlib'), 'seccomp': seccomp.__file__}))")
    out = subprocess.run([python, "-I", "-c", script], capture_output=True, text=True, check=True, timeout=60)
    return json.loads(out.stdout)


@functools.cache
def _programs() -> tuple[str, ...]:
    found = []
    for name in PROGRAMS:
        path = shutil.which(name, path="/usr/bin:/bin")
        if path:
            found.append(os.path.realpath(path))
    return tuple(found)


def _libraries(elf: str) -> list[str]:
    """The shared libraries `elf` loads (ldd's paths, as the loader names them), its interpreter among them."""
    try:
        out = subprocess.run(["ldd", elf], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [match.group(1) for line in out.splitlines() if (match := LIBRARY.search(line))]


class _Copier:
    """Copies host paths under /usr into `root`, keeping their place, their symlinks and their modes."""

    def __init__(self, root: str):
        self.root = root
        self.done: set[str] = set()

    def target(self, path: str) -> str:
        return os.path.join(self.root, os.path.relpath(path, "/"))

    def file(self, path: str) -> None:
        """Copy one file (and, for a symlink, what it points to) to the same place under the tree."""
        real = os.path.realpath(path)
        if not real.startswith("/usr/") or real in self.done:
            return
        self.done.add(real)
        os.makedirs(os.path.dirname(self.target(real)), exist_ok=True)
        shutil.copy2(real, self.target(real))

    def library(self, named: str) -> None:
        """A library by the path the loader gave: the file, its name beside it, and that path itself
        (the sandbox's /lib and /lib64 lead into /usr: /lib64/ld-linux-x86-64.so.2 is usr/lib64's)."""
        real = os.path.realpath(named)
        self.file(real)
        self.link(os.path.join(os.path.dirname(real), os.path.basename(named)), real)
        self.link(named if named.startswith("/usr/") else "/usr" + named, real)

    def link(self, path: str, real: str) -> None:
        """A symlink at `path` to `real` (both as the sandbox sees them), unless something is there."""
        place = self.target(path)
        if path != real and not os.path.lexists(place):
            os.makedirs(os.path.dirname(place), exist_ok=True)
            os.symlink(real, place)

    def tree(self, directory: str) -> list[str]:
        """Copy a directory, leaving LEFT_OUT at its top; the ELF files copied."""
        elves = []
        for top, dirs, files in os.walk(directory):
            if top == directory:
                dirs[:] = [name for name in dirs if name not in LEFT_OUT]
            for name in files:
                path = os.path.join(top, name)
                if os.path.islink(path) or not os.path.isfile(path):
                    continue
                self.file(path)
                if name.endswith(".so") or ".so." in name:
                    elves.append(path)
        return elves


def _digest(paths: dict, programs: tuple[str, ...]) -> str:
    stamp = [TREE_VERSION, sorted(LEFT_OUT), PROGRAMS]
    for path in [paths["executable"], paths["seccomp"], *programs]:
        found = os.stat(path)
        stamp.append([path, found.st_size, found.st_mtime_ns])
    return hashlib.sha256(json.dumps(stamp).encode()).hexdigest()[:16]


def _build(root: str, paths: dict, programs: tuple[str, ...]) -> None:
    copier = _Copier(root)
    elves = [paths["executable"], paths["seccomp"], *programs]
    for path in elves:
        copier.file(path)
    elves += copier.tree(paths["stdlib"])
    for elf in elves:
        for library in _libraries(elf):
            copier.library(library)
    copier.link("/usr/bin/python3", paths["executable"])
    for name in PROGRAMS:
        found = shutil.which(name, path="/usr/bin:/bin")
        if found:
            copier.link("/usr/bin/" + name, os.path.realpath(found))
    for top, dirs, files in os.walk(root):  # readable by every slot's uid, writable by none
        os.chmod(top, 0o755)
        for name in files:
            path = os.path.join(top, name)
            if not os.path.islink(path):
                os.chmod(path, 0o755 if os.access(path, os.X_OK) else 0o644)


def memory_tree(python: str = "/usr/bin/python3") -> str | None:
    """The directory whose `usr` the sandbox binds as its /usr (built if missing); None where no tmpfs has room."""
    place = _place()
    if place is None:
        return None
    paths, programs = _python_paths(python), _programs()
    directory = os.path.join(place, f"lats-sandbox-usr-{_digest(paths, programs)}")
    if os.path.isdir(os.path.join(directory, "usr")):
        return directory
    building = tempfile.mkdtemp(prefix=".lats-sandbox-usr-", dir=place)
    try:
        _build(building, paths, programs)
        os.chmod(building, 0o755)
        try:
            os.rename(building, directory)  # atomic: a concurrent builder's tree wins, this one is removed
        except OSError:
            if not os.path.isdir(os.path.join(directory, "usr")):
                raise
    finally:
        shutil.rmtree(building, ignore_errors=True)
    log.info("the sandbox's /usr is in memory at %s", directory)
    return directory
