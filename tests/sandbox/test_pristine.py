"""The worker's pristine-state checks and cleanup (pristine.py, ipc_objects.py), on the host: wipe, System V removal, traces."""

from __future__ import annotations

import ctypes
import os
import select
import subprocess
import sys

import pytest

from env_servers.sandbox import ipc_objects, pristine
from env_servers.sandbox.plain_data import MAX_HASHED_ITEMS, MAX_ITEMS, from_json, to_json

LIBC = ctypes.CDLL(None, use_errno=True)
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="private IPC namespaces and other uids need root")


# ------------------------------------------------------------------ wipe


def deep_tree(top: str, levels: int) -> None:
    fd = os.open(top, os.O_RDONLY)
    for _ in range(levels):
        os.mkdir("d", dir_fd=fd)
        inner = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    with open(f"/proc/self/fd/{fd}/leaf", "w") as handle:
        handle.write("x")
    os.close(fd)


def test_wipe_empties_a_tree_deeper_than_recursion_and_path_length_allow(tmp_path):
    deep_tree(str(tmp_path), 5000)
    assert pristine.wipe(str(tmp_path)) is True
    assert os.listdir(tmp_path) == []


def test_wipe_empties_wide_and_locked_directories(tmp_path):
    for index in range(3000):
        (tmp_path / f"f{index}").write_text("x")
    locked = tmp_path / "locked" / "inner"
    locked.mkdir(parents=True)
    (locked / "file").write_text("x")
    locked.chmod(0)
    locked.parent.chmod(0)
    assert pristine.wipe(str(tmp_path)) is True
    assert os.listdir(tmp_path) == []


def test_wipe_unlinks_symlinks_and_never_follows_them(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("host file")
    inside = tmp_path / "inside"
    inside.mkdir()
    (inside / "link").symlink_to(outside)
    (inside / "dir").mkdir()
    (inside / "dir" / "link").symlink_to(outside / "keep")
    assert pristine.wipe(str(inside)) is True
    assert os.listdir(inside) == [] and (outside / "keep").read_text() == "host file"


def test_wipe_reports_what_it_cannot_open(tmp_path):
    assert pristine.wipe(str(tmp_path / "missing")) is False


# ------------------------------------------------------------------ System V objects, in a namespace of their own


STARTUP_SECONDS = 30
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The body runs in a fresh interpreter, never in a fork of this one: a fork of the test process
# inherits its libraries' at-fork handlers (gRPC's restart thread pools in the child), and
# unshare(CLONE_NEWUSER) refuses a process with a second thread (EINVAL).
NAMESPACE_CHILD = """
import ctypes, importlib, os, sys
body = getattr(importlib.import_module(sys.argv[1]), sys.argv[2])  # imported first: uid 0 of the namespace may not read them
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWIPC, CLONE_NEWUSER = 0x08000000, 0x10000000
if libc.unshare(CLONE_NEWUSER) != 0:
    os.write(1, f"unshare(CLONE_NEWUSER) failed: errno {ctypes.get_errno()}".encode())
    os._exit(98)
os.write(1, b"x")
os.read(0, 1)
os.setresgid(0, 0, 0)
os.setresuid(0, 0, 0)
if libc.unshare(CLONE_NEWIPC) != 0:
    os._exit(97)
os.write(1, str(body(*sys.argv[3:])).encode())
"""


def in_private_namespace(body, *args: str) -> int:
    """Run `body(*args)`, a function of this module, in a fresh interpreter with a user and an IPC namespace of its own (uids 0 and 1 mapped)."""
    child = subprocess.Popen(
        [sys.executable, "-c", NAMESPACE_CHILD, __name__, body.__name__, *args],
        cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        ready, _, _ = select.select([child.stdout], [], [], STARTUP_SECONDS)
        said = os.read(child.stdout.fileno(), 256) if ready else b""
        if said != b"x":
            child.kill()
            pytest.fail(f"the namespace child did not start: {said.decode() or 'no word in time'}")
        base = 3_900_000
        for name in ("uid_map", "gid_map"):
            with open(f"/proc/{child.pid}/{name}", "w") as handle:
                handle.write(f"0 {base} 2\n")
        output, errors = child.communicate(b"x", timeout=240)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert output, f"the namespace child said nothing (exit {child.returncode}): {errors.decode()[-2000:]}"
    return int(output)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def keep_only_setuid() -> None:
    """Drop every capability but CAP_SETUID and CAP_SETGID: no CAP_SYS_ADMIN, as in the sandbox."""
    data = (_CapData * 2)()
    data[0].effective = data[0].permitted = (1 << 6) | (1 << 7)
    assert LIBC.capset(ctypes.byref(_CapHeader(0x20080522, 0)), data) == 0


def make_objects(count: int) -> None:
    for _ in range(count):
        assert LIBC.shmget(0, 4096, 0o600) >= 0
        assert LIBC.msgget(0, 0o600) >= 0
        assert LIBC.semget(0, 1, 0o600) >= 0


def left_after_cleanup() -> int:
    make_objects(2500)  # as uid 0
    pid = os.fork()
    if pid == 0:
        try:
            os.setresuid(1, 1, 1)
            make_objects(1500)  # as the other uid, whose objects uid 0 may not remove without CAP_SYS_ADMIN
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    listed = sum(len(ipc_objects.sysv_ids(kind)) for kind in ipc_objects.SYSV_KINDS)
    assert listed == 3 * 4000, listed  # the listing, read to its end, holds them all (many pages of it)
    keep_only_setuid()
    return ipc_objects.remove_leftovers([1])


@needs_root
def test_the_second_line_removes_thousands_of_objects_of_every_kind_and_owner():
    assert in_private_namespace(left_after_cleanup) == 0


def traces_seen(directory: str) -> int:
    baseline = pristine.Baseline([directory])
    assert baseline.traces(None) == []
    baseline.consumed_probes()
    for _ in range(200):  # clean runs, past several wraps of the id cycle
        assert baseline.traces(None) == []
        baseline.consumed_probes()
    ident = LIBC.msgget(0, 0o600)
    LIBC.msgctl(ident, 0, None)  # made and removed: the counter moved all the same
    if baseline.traces(None) != ["System V IPC"]:
        return 1
    return 0


@needs_root
def test_traces_see_a_system_v_object_made_and_removed_since_the_baseline(tmp_path):
    assert in_private_namespace(traces_seen, str(tmp_path)) == 0


def test_traces_see_a_file_made_and_removed_and_a_listing_does_not_count(tmp_path):
    baseline = pristine.Baseline([str(tmp_path)])
    os.listdir(tmp_path)
    assert "files" not in baseline.traces(None)
    (tmp_path / "x").write_text("x")
    (tmp_path / "x").unlink()
    assert "files" in baseline.traces(None)


# ------------------------------------------------------------------ bounded decoding


def test_decoding_refuses_too_many_set_or_dict_items_before_building_them():
    colliding = [1 + k * ((1 << 61) - 1) for k in range(MAX_HASHED_ITEMS + 1)]
    text = '{"s": [' + ",".join(map(str, colliding)) + "]}"
    with pytest.raises(ValueError, match="set or dict items"):
        from_json(text.encode())
    pairs = '{"d": [' + ",".join(f"[{k}, 0]" for k in range(MAX_HASHED_ITEMS + 1)) + "]}"
    with pytest.raises(ValueError, match="set or dict items"):
        from_json(pairs)


def test_decoding_refuses_a_frame_of_too_many_items():
    with pytest.raises(ValueError, match="items in all"):
        from_json(("[" + "0," * MAX_ITEMS + "0]").encode())


def test_plain_values_within_the_caps_still_cross():
    value = [set(range(1000)), {str(k): k for k in range(1000)}, frozenset({(1, 2)}), list(range(100000))]
    assert from_json(to_json(value)) == value
