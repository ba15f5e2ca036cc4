"""Which pages of a shared file the kernel caches: state a run could set and any later run read back.

Found attacking the sandbox: a run (say a Score run, its hidden test calling
the program with a secret) evicts a rarely read file of the sandbox's /usr
from the page cache (posix_fadvise DONTNEED) and reads back one page per 1-bit;
a later run, on any worker, of any pool, finds which pages are cached by the
major faults each touch costs (or preadv2 RWF_NOWAIT, or fault-around in
/proc/self/pagemap), and 64-bit secrets crossed whole. On bwrap the sandbox's
/usr is a copy in memory now (memory_tree.py): every tmpfs page is always
resident, so nothing a run reads or evicts changes what another sees. The
unsandboxed control reads the host's file, where the bits cross. Docker's
root is a copy in memory as well: its container's first process copies the
tree onto a tmpfs and pivots into it before the worker starts
(memory_root.py); before, its root was the image's layers on disk and
the bits crossed there too.
"""

from __future__ import annotations

import json
import secrets

import pytest

from env_servers.sandbox import Limits, RunRequest

pytestmark = pytest.mark.asyncio(loop_scope="module")

FILE = "/usr/lib/python3.11/pydoc_data/topics.py"  # large, and read by almost nothing
PAGES = range(40, 56)

SEND = r'''
import os
fd = os.open(FILE, os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)  # every page out of the cache
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)  # no readahead
for index, page in enumerate(PAGES):
    if SECRET >> index & 1:
        os.pread(fd, 1, 4096 * page)
'''

RECEIVE = r'''
import json, mmap, os, resource
fd = os.open(FILE, os.O_RDONLY)
pages = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
pages.madvise(mmap.MADV_RANDOM)
cached = []
for page in PAGES:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_majflt
    pages[4096 * page]
    cached.append(int(resource.getrusage(resource.RUSAGE_SELF).ru_majflt == before))
print("CACHED " + json.dumps(cached))
'''


@pytest.fixture
def sandbox(hazard_sandbox):
    return hazard_sandbox


async def test_pages_a_run_reads_or_evicts_tell_a_later_run_nothing(sandbox):
    values = f"FILE, PAGES = {FILE!r}, {list(PAGES)!r}\n"
    limits = Limits(wall_seconds=10.0, cpu_seconds=10)
    crossed = []
    for _ in range(2):
        secret = secrets.randbits(len(PAGES)) | 1  # at least one page read
        sent = await sandbox.run(RunRequest(program=values + f"SECRET = {secret}\n" + SEND, tests=("assert True",),
                                            limits=limits))
        assert sent.status == "ok", sent
        got = await sandbox.run(RunRequest(program=values + RECEIVE, tests=("assert True",), limits=limits))
        lines = [line[7:] for line in got.stdout.splitlines() if line.startswith("CACHED ")]
        assert got.status == "ok" and lines, got
        bits = json.loads(lines[0])
        crossed.append(sum(bit << index for index, bit in enumerate(bits)) == secret)
    if sandbox.secure:
        assert not any(crossed), f"{sandbox.name}: a later run read the secret off the page cache"
    else:
        assert all(crossed), "the unsandboxed control read no secret, so this check could never fail"


LIST_MOUNTS = r'''
import json, os
def f(x):
    with open("/proc/self/mounts") as handle:
        kinds = sorted({line.split()[2] for line in handle})
    print("MOUNTS " + json.dumps(kinds))
    print("EXE " + os.path.realpath("/proc/self/exe"))
    return 2 * x
'''
IN_MEMORY = {"tmpfs", "proc", "devpts", "mqueue", "devtmpfs", "sysfs"}  # nothing there lives in a disk's page cache


async def test_no_file_system_a_run_sees_is_on_disk(sandbox):
    """By construction rather than by one file: every mount a run sees, its interpreter's among them, is in memory."""
    result = await sandbox.run(RunRequest(program=LIST_MOUNTS, tests=("assert f(1) == 2",)))
    assert result.status == "ok" and result.all_passed, result
    kinds = json.loads(next(line[7:] for line in result.stdout.splitlines() if line.startswith("MOUNTS ")))
    on_disk = sorted(set(kinds) - IN_MEMORY)
    if sandbox.secure:
        assert on_disk == [], f"{sandbox.name}: a run sees file systems backed by a disk's page cache: {on_disk}"
    else:
        assert on_disk, "the unsandboxed control sees the host's disks, so this check could never fail"
