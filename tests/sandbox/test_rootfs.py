"""The one debootstrap → tarball → image path, shared by the sandbox's image and the deployment's bases."""

from __future__ import annotations

from pathlib import Path

import pytest

from env_servers.sandbox import rootfs
from env_servers.sandbox.image import IMAGE, SANDBOX_ROOTFS
from env_servers.sandbox.rootfs import RootfsSpec, RootfsUnavailable, build_tarball, tarball_path


def test_a_changed_package_list_gets_a_new_tag_and_tarball():
    base = RootfsSpec("lats-base", ("python3", "tini"))
    changed = RootfsSpec("lats-base", ("python3", "tini", "curl"))
    assert base.tag.startswith("lats-base:bookworm-") and base.tag != changed.tag
    assert RootfsSpec("lats-base", ("tini", "python3")).tag == base.tag  # the order does not matter
    assert tarball_path(base, Path("/cache")) != tarball_path(changed, Path("/cache"))


def test_the_sandbox_image_keeps_its_tag_whatever_its_packages():
    assert IMAGE == "lats-sandbox-python:bookworm-seccomp" == SANDBOX_ROOTFS.tag
    assert "python3-seccomp" in SANDBOX_ROOTFS.packages


def test_a_cached_tarball_is_reused_without_debootstrap(tmp_path, monkeypatch):
    spec = RootfsSpec("lats-test", ("python3",))
    cached = tarball_path(spec, tmp_path)
    cached.write_bytes(b"tar")
    monkeypatch.setattr(rootfs.shutil, "which", lambda name: None)
    assert build_tarball(spec, tmp_path) == cached
    with pytest.raises(RootfsUnavailable, match="debootstrap is not installed"):
        build_tarball(spec, tmp_path, refresh=True)
