"""Reading which libraries ELF files load (elf_needs.py): the same files ldd finds, for what the sandbox copies."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from env_servers.sandbox.elf_needs import needed_libraries
from env_servers.sandbox.tree_copy import programs

LDD_PATH = re.compile(r"(?:^|=>)\s*(/\S+)\s+\(0x")


def sandbox_elves(python: str) -> list[str]:
    """The sandbox's interpreter, its programs and every extension module of its standard library."""
    script = "import os, sys, sysconfig; print(os.path.realpath(sys.executable)); print(sysconfig.get_path('stdlib'))"
    executable, stdlib = subprocess.run([python, "-I", "-c", script], capture_output=True, text=True,
                                        check=True, timeout=60).stdout.split()
    elves = [executable, *programs()]
    for top, _, files in os.walk(stdlib):
        elves += [os.path.join(top, name) for name in files if name.endswith(".so") or ".so." in name]
    return elves


def test_the_libraries_found_are_the_files_ldd_finds():
    python = shutil.which("python3", path="/usr/bin:/bin")
    if shutil.which("ldd") is None or python is None:
        pytest.skip("no ldd to compare with, or no system python3 (the sandbox's)")
    elves = sandbox_elves(python)
    out = subprocess.run(["ldd", *elves], capture_output=True, text=True, timeout=120).stdout
    by_ldd = {os.path.realpath(match.group(1)) for line in out.splitlines() if (match := LDD_PATH.search(line))}
    found = needed_libraries(elves)
    assert by_ldd and {os.path.realpath(path) for path in found} == by_ldd
    assert len(elves) > 10 and ("/lib64/ld-linux-x86-64.so.2" in found or os.uname().machine != "x86_64")


def test_what_is_not_a_dynamic_elf_needs_nothing(tmp_path):
    script = tmp_path / "script.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    assert needed_libraries([str(script), str(tmp_path / "missing")]) == []
