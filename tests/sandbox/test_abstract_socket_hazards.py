"""An abstract unix socket kept alive in flight outlives its run: its name must not reach the next run.

Abstract socket names live in a network namespace, and the sandbox's runs
used to share the worker's. Killing every process of a run does not free a
socket whose only reference is a message in flight: run 1 binds one name per
bit of a secret, sends each socket's fd (with the receiving end's own) over a
socketpair and closes everything, so each socket is held only by a message
queued on a socket held only by that message. The kernel frees such cycles
when its unix garbage collector runs: each unix socket's release starts it
unless it is already running, so a cycle that becomes garbage while it runs
stays until the next release of any unix socket on the host. Run 2, on the
same worker, reads the namespace's listing (/proc/net/unix, making no socket
itself; where a run's /proc has none, binds each name, closing nothing before
the last): each name bound is a bit of run 1's secret, and with it, say, a
hidden test's inputs.

bwrap contains it by construction (each run has a network namespace of its
own, worker/run_namespaces.py), so it is tested with the pristine check on and
off (`UNCHECKED`). Docker's runs share the container's namespace: there the
pristine check counts the namespace's unix sockets after every run and
retires a worker whose run left any. The control is the design before issue
36 on bwrap with its check off (`SHARED_NAMESPACES`: runs share the worker's
network namespace), where names cross: a race with the collector, which the
last names made win most (the whole secret crossed in 12 of 20 tries of an
earlier version, some bits in about a third of tries of this one; the test
asks for one bit in ATTEMPTS tries). The process backend cannot be the
control here: in the host's namespace other processes keep closing unix
sockets, and each close starts the collector.
"""

from __future__ import annotations

import secrets

import pytest
import pytest_asyncio

from env_servers.sandbox import RunRequest, make_sandbox
from tests.sandbox.unchecked import SHARED_NAMESPACES, UNCHECKED

pytestmark = pytest.mark.asyncio(loop_scope="module")

BITS = 24
ATTEMPTS = 20  # the control crossed in 23 of 60 tries when this was written: P(no crossing in 20) < 1e-4
# The control's race with the collector is rarer on a loaded machine (0 of 20 once, beside three
# model benches): it tries until the first crossing, up to this many times.
CONTROL_ATTEMPTS = 100
CASES = [
    pytest.param(("bwrap", None), id="bwrap"),
    pytest.param(("bwrap", UNCHECKED), id="bwrap-unchecked"),
    pytest.param(("docker", None), id="docker"),
    pytest.param(("bwrap", SHARED_NAMESPACES), id="control-bwrap-shared-namespaces"),
]


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=CASES)
async def sandbox(request):
    backend, design = request.param
    options = {} if design is None else {"design": design}
    if backend == "docker":
        box = make_sandbox("docker", base_url=request.getfixturevalue("docker_url"), workers=1, **options)
    else:
        box = make_sandbox(backend, workers=1, **options)
    box.checked = design not in (UNCHECKED, SHARED_NAMESPACES)
    box.control = design is SHARED_NAMESPACES
    yield box
    await box.aclose()


LEAVE_IN_FLIGHT = r'''
import array, socket
def leave(prefix, secret):
    """One abstract name per set bit, each socket held only by a message in flight."""
    for bit in range(BITS):
        if not secret >> bit & 1:
            continue
        held = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        held.bind(b"\0" + prefix + b"-%d" % bit)
        sender, receiver = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        fds = array.array("i", [held.fileno(), receiver.fileno()])
        sender.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
        for each in (held, sender, receiver):
            each.close()
leave(PREFIX, SECRET)
print("LEFT")
'''

READ_NAMES = r'''
import errno, socket
def read(prefix):
    """The bits whose names are bound, read off the namespace's listing: no socket made or closed here.

    Where the run's /proc has no listing (bwrap's runs see their own processes
    only), each name is tried with bind, every socket made first and closed
    only after the last try: a close starts the collector, which would free
    the names still unread.
    """
    try:
        with open("/proc/net/unix") as listing:
            names = {line.split()[-1] for line in listing.read().splitlines()[1:] if line.split()[-1].startswith("@")}
    except FileNotFoundError:
        probes = [socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) for _ in range(BITS)]
        names = set()
        for bit, probe in enumerate(probes):
            try:
                probe.bind(b"\0" + prefix + b"-%d" % bit)
            except OSError as error:
                if error.errno == errno.EADDRINUSE:
                    names.add("@" + prefix.decode() + "-%d" % bit)
        for probe in probes:
            probe.close()
    return sum(1 << bit for bit in range(BITS) if "@" + prefix.decode() + "-%d" % bit in names)
print("READ %d" % read(PREFIX))
'''


def marked(result, prefix: str) -> str:
    lines = [line for line in result.stdout.splitlines() if line.startswith(prefix)]
    assert len(lines) == 1, result
    return lines[0][len(prefix) :]


async def leave_and_read(sandbox) -> tuple[int, int, bool]:
    """(secret, what the next run read of it, whether both runs had the same worker)."""
    prefix = f"lats-flight-{secrets.token_hex(6)}".encode()
    secret = secrets.randbits(BITS) | 1  # never zero: reading nothing is never reading the secret
    values = f"BITS, PREFIX, SECRET = {BITS}, {prefix!r}, {secret}\n"
    leaving = await sandbox.run(RunRequest(program=values + LEAVE_IN_FLIGHT, tests=("assert True",)))
    assert leaving.status == "ok" and marked(leaving, "LEFT") == "", leaving
    workers = sandbox.worker_host_pids()
    reading = await sandbox.run(RunRequest(program=values + READ_NAMES, tests=("assert True",)))
    assert reading.status == "ok", reading
    return secret, int(marked(reading, "READ ")), bool(workers) and sandbox.worker_host_pids() == workers


async def test_abstract_socket_names_kept_in_flight_do_not_reach_the_next_run(sandbox):
    if sandbox.control:
        # a name that answers is a bit of that attempt's secret (the names are new each attempt)
        tries = []
        for _ in range(CONTROL_ATTEMPTS):
            secret, read, same = await leave_and_read(sandbox)
            tries.append((secret, read, same))
            if read and read & ~secret == 0:
                return
        raise AssertionError(f"the control never read a bit of a secret, so this check could never fail: {tries}")
    tries = [await leave_and_read(sandbox) for _ in range(ATTEMPTS)]
    assert [read for _, read, _ in tries] == [0] * ATTEMPTS, f"{sandbox.name}: the next runs read {tries}"
    if not sandbox.checked:
        assert all(same for _, _, same in tries), "the worker was replaced: the check was meant to be off"
