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

A page every worker maps is still shared state (how many processes map it:
round five read it between overlapping runs), so each bwrap worker copies
this tree again into memory of its own and pivots into it (memory_root.py);
this one is the copies' source, bound as /usr. What goes in it is
tree_copy.py's (docker's containers copy the same from their image).
`memory_tree(python)`
builds the tree once per host (per interpreter and file list: its
directory's name carries their digest) and returns its directory, or None
where no tmpfs has room (then the caller binds the host's /usr and says
what that leaves open). The tree stays for the host's later sandboxes;
removing `lats-sandbox-usr-*` from its place frees the memory.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import shutil
import subprocess
import tempfile

from env_servers.sandbox.tree_copy import LEFT_OUT, PROGRAMS, build, programs

log = logging.getLogger(__name__)

PLACES = ("LATS_SANDBOX_TREE_DIR", "/dev/shm", "/run", "/tmp")  # an environment variable, then tmpfs mounts
# (a place must be a tmpfs that allows executing, with ROOM_BYTES free, writable by this process)
ROOM_BYTES = 128 << 20  # the tree is about 75 MB
TREE_VERSION = 2  # 2: libraries found by reading dynamic sections (elf_needs.py), not by ldd


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


def _digest(paths: dict, found: tuple[str, ...]) -> str:
    stamp = [TREE_VERSION, sorted(LEFT_OUT), PROGRAMS]
    for path in [paths["executable"], paths["seccomp"], *found]:
        found = os.stat(path)
        stamp.append([path, found.st_size, found.st_mtime_ns])
    return hashlib.sha256(json.dumps(stamp).encode()).hexdigest()[:16]


def memory_tree(python: str = "/usr/bin/python3") -> str | None:
    """The directory whose `usr` the sandbox binds as its /usr (built if missing); None where no tmpfs has room."""
    place = _place()
    if place is None:
        return None
    paths, found = _python_paths(python), programs()
    directory = os.path.join(place, f"lats-sandbox-usr-{_digest(paths, found)}")
    if os.path.isdir(os.path.join(directory, "usr")):
        return directory
    building = tempfile.mkdtemp(prefix=".lats-sandbox-usr-", dir=place)
    try:
        build(building, paths, found)
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
