"""A docker worker's root file system in memory: its container's first act, before the worker starts.

A docker sandbox's root is its image's layers on disk, whose page cache every
container of the image shares: a run that evicts pages of a rarely read file
and a later run that times its reads pass bits (memory_tree.py tells how).
So the container's main process first goes into a user and mount namespace
of its own (it has no capability in the container's), copies what the
sandbox's Python needs onto a fresh tmpfs there (tree_copy.build: about 50 MB
of the image's /usr, charged to the container's memory), binds the
container's /dev, /proc and /tmp into it, makes it read-only, pivots into it
and detaches the old root, then executes the worker from that copy. No file
a later process can open, map or execute lives on disk: every page is
always resident, whatever a run reads or evicts.

Run as `python3 -I -c SCRIPT [--in-this-user-namespace] --size BYTES --
WORKER-COMMAND...` (the script is this module joined after tree_copy,
worker_script.memory_root_source). bwrap's workers do the same from the
host's shared tree (`--in-this-user-namespace`): each worker's pages are its
own, so no run reads how many processes map a page another run maps.
Exits with a message saying what the container must allow if a step fails.
"""

import ctypes
import os
import platform
import sys

from env_servers.sandbox.tree_copy import build, own_interpreter_paths, programs

LIBC = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}  # the syscall's number; glibc has no wrapper
NEW_ROOT = "/mnt"  # an empty directory of every Debian root, where the fresh tmpfs goes
BOUND = ("/dev", "/proc", "/tmp")  # the container's mounts the worker uses, with what is mounted below them
LINKS = (("bin", "usr/bin"), ("lib", "usr/lib"), ("lib64", "usr/lib64"))  # merged /usr, as the image has it


def _checked(result, what):
    if result != 0:
        raise SystemExit("the sandbox's container cannot put its root in memory: %s failed (%s); its seccomp "
                         "profile must allow user namespaces, mount and pivot_root (container_seccomp.json)"
                         % (what, os.strerror(ctypes.get_errno())))


def _bytes(text):
    return None if text is None else text.encode()


def _mount(source, target, kind, flags, options):
    _checked(LIBC.mount(_bytes(source), _bytes(target), _bytes(kind), flags, _bytes(options)),
             "mount of %s on %s" % (kind or source or "flags", target))


def enter_a_root_in_memory(size_bytes, own_user_namespace=True):
    """Go on (this process) with a root that is a read-only tmpfs copy of what the sandbox's Python needs.

    `own_user_namespace`: make a user namespace first (docker's container grants no capability); False
    where the process already holds CAP_SYS_ADMIN over its sandbox's namespaces (bwrap's worker, which
    keeps it through the exec for its runs' namespaces) and keeps that sandbox's uid map.
    """
    if own_user_namespace:
        uid, gid = os.getuid(), os.getgid()
        _checked(LIBC.unshare(CLONE_NEWUSER | CLONE_NEWNS), "unshare(CLONE_NEWUSER | CLONE_NEWNS)")
        for name, text in (("setgroups", "deny"), ("uid_map", "%d %d 1" % (uid, uid)),
                           ("gid_map", "%d %d 1" % (gid, gid))):
            with open("/proc/self/" + name, "w") as handle:
                handle.write(text)
    else:
        _checked(LIBC.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    _mount(None, "/", None, MS_REC | MS_PRIVATE, None)
    _mount("tmpfs", NEW_ROOT, "tmpfs", MS_NOSUID | MS_NODEV, "size=%d,mode=0755" % size_bytes)
    build(NEW_ROOT, own_interpreter_paths(), programs())
    for name, target in LINKS:
        if os.path.isdir(os.path.join(NEW_ROOT, target)):
            os.symlink(target, os.path.join(NEW_ROOT, name))
    for directory in BOUND:
        os.mkdir(NEW_ROOT + directory, 0o755)
        _mount(directory, NEW_ROOT + directory, None, MS_BIND | MS_REC, None)
    _mount(None, NEW_ROOT, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, None)
    os.chdir(NEW_ROOT)
    _checked(LIBC.syscall(PIVOT_ROOT[platform.machine()], b".", b"."), "pivot_root")
    _checked(LIBC.umount2(b".", MNT_DETACH), "detaching the image's root")
    os.chdir("/")


def main():
    arguments = sys.argv[1:]
    own_user_namespace = arguments[:1] != ["--in-this-user-namespace"]
    arguments = arguments[0 if own_user_namespace else 1:]
    if len(arguments) < 4 or arguments[0] != "--size" or arguments[2] != "--":
        raise SystemExit("usage: [--in-this-user-namespace] --size BYTES -- WORKER-COMMAND...")
    enter_a_root_in_memory(int(arguments[1]), own_user_namespace)
    command = arguments[3:]
    os.execv(command[0], command)


if __name__ == "__main__":
    main()
