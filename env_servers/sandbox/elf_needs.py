"""Which shared libraries ELF files load, read from their dynamic sections: what ldd says, without a process per file.

`needed_libraries(paths)` follows each file's program interpreter and
DT_NEEDED entries, transitively, resolving names as the loader does on a
Debian system: the file's DT_RUNPATH or DT_RPATH ($ORIGIN expanded), then the
multiarch and plain library directories. It returns each library by the path
it was found at (a caller follows symlinks itself), the interpreters among
them. Standard library only: it runs inside a docker container before the
sandbox's worker exists (memory_root.py), where ldd, a shell script that runs
the loader once per file, took 0.8 s for the sandbox's 56 files.

A file's own DT_RPATH applies to its own names only (the loader also lets an
executable's RPATH serve its libraries' names; no file the sandbox copies
has one). Only 64-bit little-endian files are read (the sandbox's hosts'); any other
file, or one that is not ELF, needs nothing here.
"""

import os
import struct
import sysconfig

PT_LOAD, PT_DYNAMIC, PT_INTERP = 1, 2, 3
DT_NEEDED, DT_STRTAB, DT_RPATH, DT_RUNPATH = 1, 5, 15, 29
MULTIARCH = sysconfig.get_config_var("MULTIARCH") or "x86_64-linux-gnu"
DEFAULT_DIRS = tuple(
    directory
    for top in ("/lib", "/usr/lib")
    for directory in (f"{top}/{MULTIARCH}", top)
) + ("/lib64", "/usr/lib64")


def _dynamic_facts(path):
    """(interpreter or None, needed names, search dirs of the file's own) of one ELF file."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None, [], []
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None, [], []
    phoff = struct.unpack_from("<Q", data, 0x20)[0]
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    interpreter, dynamic, loads = None, None, []
    for index in range(phnum):
        kind, _, offset, vaddr, _, filesz, _, _ = struct.unpack_from("<IIQQQQQQ", data, phoff + index * phentsize)
        if kind == PT_INTERP:
            interpreter = data[offset:offset + filesz].rstrip(b"\0").decode()
        elif kind == PT_DYNAMIC:
            dynamic = (offset, filesz)
        elif kind == PT_LOAD:
            loads.append((vaddr, offset, filesz))
    if dynamic is None:
        return interpreter, [], []
    entries = [struct.unpack_from("<qQ", data, dynamic[0] + at) for at in range(0, dynamic[1] - 15, 16)]
    strtab = next((value for tag, value in entries if tag == DT_STRTAB), None)
    table = next((offset + strtab - vaddr for vaddr, offset, size in loads if vaddr <= strtab < vaddr + size), None)
    if table is None:
        return interpreter, [], []

    def string(at):
        return data[table + at:data.index(b"\0", table + at)].decode()

    origin = os.path.dirname(os.path.realpath(path))
    own_dirs = [directory.replace("$ORIGIN", origin).replace("${ORIGIN}", origin)
                for tag, value in entries if tag in (DT_RUNPATH, DT_RPATH)
                for directory in string(value).split(":") if directory]
    return interpreter, [string(value) for tag, value in entries if tag == DT_NEEDED], own_dirs


def _find(name, dirs):
    if "/" in name:
        return name if os.path.exists(name) else None
    for directory in dirs:
        candidate = os.path.join(directory, name)
        if os.path.exists(candidate):
            return candidate
    return None


def needed_libraries(paths):
    """Every library the ELF files `paths` load, directly or not, by the path it was found at; in first-found order."""
    found, queue = [], list(paths)
    seen = set()
    while queue:
        path = queue.pop(0)
        interpreter, names, own_dirs = _dynamic_facts(path)
        for library in ([interpreter] if interpreter else []) + [_find(name, own_dirs + list(DEFAULT_DIRS))
                                                                  for name in names]:
            if library is not None and library not in seen:
                seen.add(library)
                found.append(library)
                queue.append(library)
    return found
