"""The sandbox's /usr in memory (memory_tree.py): where it is built, what it holds, and when there is none."""

from __future__ import annotations

import os

from env_servers.sandbox import memory_tree as tree_module
from env_servers.sandbox.memory_tree import memory_tree


def test_the_tree_is_on_tmpfs_and_holds_what_the_sandbox_starts():
    directory = memory_tree()
    assert directory is not None and tree_module._mount_type(directory) == "tmpfs"
    usr = os.path.join(directory, "usr")
    python = os.path.join(usr, "bin", "python3")
    assert os.readlink(python).startswith("/usr/bin/python3")  # a link inside the sandbox's own /usr
    assert os.path.isfile(os.path.join(directory, os.readlink(python).lstrip("/")))
    assert os.path.islink(os.path.join(usr, "lib64", "ld-linux-x86-64.so.2"))  # the interpreter every ELF names
    assert os.path.isfile(os.path.join(usr, "lib", "python3.11", "pydoc_data", "topics.py"))
    assert not os.path.exists(os.path.join(usr, "lib", "python3.11", "test"))
    assert memory_tree() == directory  # built once: the second call finds it


def test_bwrap_binds_the_tree_as_its_usr():
    from env_servers.sandbox.bwrap import BwrapLauncher

    launcher = BwrapLauncher()
    argv = launcher.argv()
    at = argv.index("/usr", argv.index("--ro-bind"))
    assert argv[at - 1] == launcher.usr and launcher.usr.endswith("/usr") and launcher.usr != "/usr"


def test_no_tree_where_no_tmpfs_has_room(monkeypatch, tmp_path):
    monkeypatch.setattr(tree_module, "PLACES", (str(tmp_path),))
    if tree_module._mount_type(str(tmp_path)) != "tmpfs":
        assert memory_tree() is None
    monkeypatch.setattr(tree_module, "ROOM_BYTES", 1 << 62)
    assert memory_tree() is None
