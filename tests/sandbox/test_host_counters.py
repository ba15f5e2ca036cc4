"""host_counters: what each backend is told to hide, and the empty file bwrap binds."""

from __future__ import annotations

import os
import stat

import pytest

from env_servers.sandbox import SandboxUnavailable
from env_servers.sandbox.host_counters import (
    DOCKER_DEFAULT_MASKS,
    HOST_WIDE_DIRS,
    HOST_WIDE_FILES,
    EmptyFile,
    bwrap_masks,
    docker_masked_paths,
)


def test_bwrap_hides_each_present_directory_read_only_and_each_present_file_behind_the_empty_one():
    arguments = bwrap_masks("/tmp/empty")
    for directory in HOST_WIDE_DIRS:
        if os.path.exists(directory):
            at = arguments.index(directory)
            assert arguments[at - 1] == "--tmpfs" and arguments[at + 1:at + 3] == [
                "--remount-ro", directory]
    files = [arguments[i + 2] for i, word in enumerate(arguments) if word == "--ro-bind"]
    assert files == [path for path in HOST_WIDE_FILES if os.path.exists(path)]
    assert "/proc/sys/fs/file-nr" not in arguments and "/proc/sys/kernel" not in arguments


def test_docker_keeps_its_own_masks_and_adds_the_counters_and_sys():
    masked = docker_masked_paths()
    assert set(DOCKER_DEFAULT_MASKS) <= set(masked) and "/sys" in masked
    assert {"/proc/sys/fs", "/proc/loadavg", "/proc/stat", "/proc/meminfo"} <= set(masked)


def test_the_empty_file_is_readable_by_every_uid_and_made_again_if_removed_or_filled():
    empty = EmptyFile()
    first = empty.path()
    assert os.path.getsize(first) == 0 and stat.S_IMODE(os.stat(first).st_mode) == 0o444
    os.unlink(first)
    second = empty.path()
    assert os.path.isfile(second)
    os.chmod(second, 0o644)
    with open(second, "w") as spoiled:
        spoiled.write("x")
    third = empty.path()
    assert third != second and os.path.getsize(third) == 0 and not os.path.exists(second)
    empty.remove()
    assert not os.path.exists(third)


def test_a_host_whose_tmp_cannot_hold_the_empty_file_gets_a_typed_error(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("tempfile.mkstemp", refuse)
    with pytest.raises(SandboxUnavailable, match="make that directory writable"):
        EmptyFile().path()


def test_bwrap_masks_the_workers_proc_only_where_runs_share_it():
    """A run with namespaces of its own mounts a /proc of its own, which the kernel refuses under a masked one."""
    from env_servers.sandbox.bwrap import BwrapLauncher
    from tests.sandbox.unchecked import SHARED_NAMESPACES

    own = BwrapLauncher()
    assert own.run_namespaces and not any(path.startswith("/proc/") for path in own.argv())
    shared = BwrapLauncher(design=SHARED_NAMESPACES)
    assert not shared.run_namespaces and "/proc/stat" in shared.argv() and "/proc/sys/fs" in shared.argv()


def test_docker_masks_only_sys_where_runs_have_a_proc_of_their_own():
    """The kernel refuses a user namespace a procfs mount while any path of the container's /proc is masked."""
    assert docker_masked_paths(run_namespaces=True) == ["/sys"]
    assert set(HOST_WIDE_FILES) <= set(docker_masked_paths()) and "/sys" in docker_masked_paths()
