"""How many processes map a page of a file every sandbox shares: state one run sets and an overlapping run reads.

Found attacking the sandbox (round five): every bwrap worker on a host maps
the same in-memory /usr. A run maps page i of a file nothing else maps
(pydoc's topics) for each 1-bit of a secret and holds the mappings; a run on
another worker, or in another sandbox, maps the same pages and reads bit 56
of /proc/self/pagemap (PM_MMAP_EXCLUSIVE: the page is mapped once on the
whole host) or smaps' Shared and Private figures: 128 bits crossed whole, 3
times in 3. Nothing is written and the counts go back when the runs end, so
only overlapping runs share it. Now each worker, bwrap's as docker's, copies
the tree into memory of its own and pivots into it before it starts
(memory_root.py): no page of its /usr is another worker's.
"""

from __future__ import annotations

import asyncio
import secrets

import pytest
import pytest_asyncio

from env_servers.sandbox import Limits, RunRequest
from tests.sandbox.hazard_kit import HAZARD_BACKENDS, expect_contained, hazard_box

pytestmark = pytest.mark.asyncio(loop_scope="module")

BITS = 32

COMMON = r'''
import ctypes, os, struct, sys, time
FILE = os.path.join(os.path.dirname(os.__file__), "pydoc_data", "topics.py")  # large, and mapped by nothing else
libc = ctypes.CDLL(None)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]

def mapped():  # one mapping a page, so the kernel's fault-around maps no neighbour
    fd = os.open(FILE, os.O_RDONLY)
    pages = [libc.mmap(None, 4096, 1, 1, fd, index * 4096) for index in range(BITS)]  # PROT_READ, MAP_SHARED
    os.close(fd)
    return pages
'''

SEND = COMMON + r'''
def f(x):
    pages = mapped()
    for index in range(BITS):
        if SECRET >> index & 1:
            ctypes.c_char.from_address(pages[index]).value
    time.sleep(2.0)
    return 2 * x
'''

RECEIVE = COMMON + r'''
def f(x):
    time.sleep(0.8)
    pages = mapped()
    value = 0
    with open("/proc/self/pagemap", "rb") as pagemap:
        for index in range(BITS):
            ctypes.c_char.from_address(pages[index]).value
            pagemap.seek(pages[index] // 4096 * 8)
            entry = struct.unpack("Q", pagemap.read(8))[0]
            if entry >> 63 & 1 and not entry >> 56 & 1:  # present, and mapped elsewhere too
                value |= 1 << index
    print("GOT %d" % value)
    return 2 * x
'''


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=HAZARD_BACKENDS)
async def two_workers(request):
    """A sandbox of two workers per secure backend, and the unsandboxed control."""
    box = hazard_box(request, workers=2)
    yield box
    await box.aclose()


async def test_overlapping_runs_read_no_map_count_of_each_others_pages(two_workers):
    limits = Limits(wall_seconds=10.0, cpu_seconds=10)
    crossed = []
    for _ in range(2):
        secret = secrets.randbits(BITS) | 1
        head = f"BITS, SECRET = {BITS}, {secret}\n"
        sent, got = await asyncio.gather(
            two_workers.run(RunRequest(program=head + SEND, tests=("assert f(1) == 2",), limits=limits)),
            two_workers.run(RunRequest(program=head + RECEIVE, tests=("assert f(1) == 2",), limits=limits)))
        assert sent.all_passed and got.all_passed, (sent, got)
        value = int(next(line[4:] for line in got.stdout.splitlines() if line.startswith("GOT ")))
        if value == secret:
            crossed.append(f"the secret {secret:#x} crossed whole")
    expect_contained(two_workers, crossed)
