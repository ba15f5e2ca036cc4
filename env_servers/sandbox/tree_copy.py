"""Copying what the sandbox's Python needs from /usr into a directory: the tree a sandbox runs from, in memory.

Used on the host (memory_tree.py builds bwrap's /usr once per host) and
inside a docker worker's container (memory_root.py builds the
container's own before its worker starts), so it imports nothing but the
standard library. `build(root, paths)` copies the interpreter, its standard
library without LEFT_OUT, the libseccomp binding, PROGRAMS and the shared
libraries they load, each at its own path under `root`, readable by all and
writable by none.
"""

import functools
import importlib.util
import os
import shutil
import sys
import sysconfig

from env_servers.sandbox.elf_needs import needed_libraries

PROGRAMS = ("sh", "sleep", "cat", "echo", "ls", "true", "false", "env")  # what a program may start besides python
LEFT_OUT = {"test", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3"}  # stdlib parts no run needs


def own_interpreter_paths() -> dict:
    """This interpreter's paths, as `build` takes them: executable, stdlib, seccomp (its binding's file)."""
    return {"executable": os.path.realpath(sys.executable), "stdlib": sysconfig.get_path("stdlib"),
            "seccomp": importlib.util.find_spec("seccomp").origin}


@functools.cache
def programs() -> tuple[str, ...]:
    found = []
    for name in PROGRAMS:
        path = shutil.which(name, path="/usr/bin:/bin")
        if path:
            found.append(os.path.realpath(path))
    return tuple(found)


class Copier:
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
        """A library by the path the loader finds it at: the file, its name beside it, and that path itself
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


def build(root: str, paths: dict, found_programs: tuple[str, ...]) -> None:
    """Copy the tree into `root` (an empty directory): see the module's docstring."""
    copier = Copier(root)
    elves = [paths["executable"], paths["seccomp"], *found_programs]
    for path in elves:
        copier.file(path)
    elves += copier.tree(paths["stdlib"])
    for library in needed_libraries(elves):
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
