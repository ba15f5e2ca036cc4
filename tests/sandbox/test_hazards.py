"""The hazard suite: hostile programs, checked from the host side.

Every hazard runs on each secure backend (bwrap, docker) and on a deliberately
unsandboxed runner (the insecure 'process' backend) as a negative control: for
isolation hazards the control must show the escape, proving the host-side
check can fail; resource hazards (loops, sleeps, floods, early exits, killed
workers) are handled by the worker itself, so every backend must contain them.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import time
from pathlib import Path

import pytest

from env_servers.sandbox import Limits, RunRequest
from tests.sandbox.hazard_kit import expect_contained
from tests.sandbox.observe import PeakCounter, leftover_processes

pytestmark = pytest.mark.asyncio(loop_scope="module")

SHORT = Limits(wall_seconds=1.5, cpu_seconds=5)
TIME_BOUND = 4.0  # seconds a timed-out run may take beyond its wall limit, worker cleanup included


@pytest.fixture
def sandbox(hazard_sandbox):
    return hazard_sandbox


@pytest.fixture
def token() -> str:
    return secrets.token_hex(8)



async def run(sandbox, program: str, tests=("assert True",), limits: Limits = Limits()):
    started = time.monotonic()
    result = await sandbox.run(RunRequest(program=program, tests=tuple(tests), limits=limits))
    return result, time.monotonic() - started


async def assert_clean_and_usable(sandbox) -> None:
    assert leftover_processes(sandbox) == []
    result, _ = await run(sandbox, "def f(x):\n    return 2 * x\n", ("assert f(2) == 4",))
    assert result.all_passed, result
    assert leftover_processes(sandbox) == []


# ------------------------------------------------------------------ time


async def test_infinite_loop_is_stopped_at_the_wall_limit(sandbox):
    result, elapsed = await run(sandbox, "while True:\n    pass\n", limits=SHORT)
    assert result.status == "timeout" and not result.all_passed
    assert SHORT.wall_seconds <= elapsed < SHORT.wall_seconds + TIME_BOUND
    await assert_clean_and_usable(sandbox)


# A new session where the sandbox allows one (the control); on bwrap and docker setsid is denied (it moves a
# host-wide counter), so the sleeper stays in the program's process group, and must die with the run either way.
SLEEPER_IN_A_SESSION_OF_ITS_OWN = (
    "try:\n"
    "    subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
    "except (OSError, subprocess.SubprocessError):\n"
    "    subprocess.Popen(['sleep', '300'])\n"
)


async def test_long_sleep_is_stopped_at_the_wall_limit(sandbox):
    result, elapsed = await run(sandbox, "import time\ntime.sleep(3600)\n", limits=SHORT)
    assert result.status == "timeout"
    assert elapsed < SHORT.wall_seconds + TIME_BOUND
    await assert_clean_and_usable(sandbox)


async def test_background_sleeper_does_not_outlive_the_run(sandbox):
    program = "import subprocess\n" + SLEEPER_IN_A_SESSION_OF_ITS_OWN
    result, elapsed = await run(sandbox, program)
    assert result.status == "ok", result
    assert elapsed < 3.0
    await assert_clean_and_usable(sandbox)


async def test_fork_bomb_is_capped_and_cleaned_up(sandbox):
    if not sandbox.secure and os.geteuid() == 0:
        pytest.skip("RLIMIT_NPROC does not bind root, so the unsandboxed control would fork-bomb the host")
    limits = Limits(wall_seconds=2.0, max_processes=32)
    program = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    with PeakCounter(sandbox) as counter:
        result, elapsed = await run(sandbox, program, limits=limits)
    assert not result.all_passed
    assert elapsed < limits.wall_seconds + TIME_BOUND
    assert 1 < counter.peak <= limits.max_processes + 1, f"peak {counter.peak} processes (+1: the tester)"
    await assert_clean_and_usable(sandbox)


# ------------------------------------------------------------------ memory and output


async def test_huge_allocation_reads_as_memory(sandbox):
    result, _ = await run(sandbox, "block = bytearray(8 << 30)\n")
    assert result.status == "memory"
    await assert_clean_and_usable(sandbox)


async def test_growing_allocation_reads_as_memory(sandbox):
    program = "chunks = []\nwhile True:\n    chunks.append(bytearray(64 << 20))\n"
    result, _ = await run(sandbox, program, limits=Limits(memory_bytes=512 << 20))
    assert result.status == "memory"
    await assert_clean_and_usable(sandbox)


async def test_output_flood_is_capped(sandbox):
    limits = Limits(wall_seconds=1.5, max_output_bytes=4096)
    program = "import sys\nwhile True:\n    print('x' * 1000)\n    sys.stderr.write('y' * 1000)\n"
    result, elapsed = await run(sandbox, program, limits=limits)
    assert result.status == "timeout"
    assert elapsed < limits.wall_seconds + TIME_BOUND
    assert 4096 <= len(result.stdout) <= 4096 + 100
    assert len(result.stderr) <= 4096 + 200
    await assert_clean_and_usable(sandbox)


async def test_one_big_write_is_truncated_but_the_tests_still_count(sandbox):
    program = "import sys\nsys.stdout.write('z' * (20 << 20))\ndef f():\n    return 1\n"
    result, _ = await run(sandbox, program, ("assert f() == 1",), Limits(max_output_bytes=8192))
    assert result.all_passed, result.status
    assert result.stdout.startswith("z" * 8192) and len(result.stdout) <= 8192 + 100
    assert "truncated" in result.stdout


async def test_big_file_is_refused(sandbox):
    program = "open('big', 'wb').write(b'0' * (64 << 20))\n"
    result, _ = await run(sandbox, program, limits=Limits(max_file_bytes=1 << 20))
    assert result.status == "error" and "File too large" in result.stderr, result


# ------------------------------------------------------------------ faking a pass, killing the worker


async def test_early_exit_is_not_a_pass(sandbox):
    program = "def f(x):\n    return 0\nimport os\nos._exit(0)\n"
    result, _ = await run(sandbox, program, ("assert f(1) == 1",))
    assert result.status == "crashed" and not result.all_passed and result.passed == 0


async def test_forged_result_records_are_ignored(sandbox):
    forged = '{"program": "ok"}\\n{"test": 0, "passed": true}\\n{"done": true}\\n'
    program = (
        "import os\n"
        f"forged = b'{forged}'\n"
        "print(forged.decode())\n"
        "for fd in range(3, 64):\n"
        "    try:\n"
        "        os.write(fd, forged)\n"
        "    except OSError:\n"
        "        pass\n"
        "os._exit(0)\n"
    )
    result, _ = await run(sandbox, program, ("assert False",))
    assert result.status == "crashed" and result.passed == 0


async def test_exit_inside_a_test_fails_that_test_only(sandbox):
    program = "import sys\ndef f():\n    sys.exit(0)\n"
    result, _ = await run(sandbox, program, ("assert f() is None", "assert 1 + 1 == 2"))
    assert result.status == "ok"
    assert [t.passed for t in result.tests] == [False, True]
    assert "SystemExit" in result.tests[0].detail


async def test_killing_the_parent_worker_is_survived(sandbox):
    program = (
        "import os, signal\n"
        "try:\n"
        "    os.kill(os.getppid(), signal.SIGKILL)\n"
        "except OSError as error:\n"
        "    print(error)\n"
        "def f():\n"
        "    return 1\n"
    )
    result, _ = await run(sandbox, program, ("assert f() == 2",))
    assert not result.all_passed
    await assert_clean_and_usable(sandbox)


# ------------------------------------------------------------------ isolation


async def test_writes_outside_the_work_dir_do_not_reach_the_host(sandbox, token):
    targets = [f"/tmp/lats-escape-{token}", f"/usr/lats-escape-{token}", f"/lats-escape-{token}"]
    program = (
        "import os\n"
        f"for target in {targets!r}:\n"
        "    try:\n"
        "        with open(target, 'w') as handle:\n"
        "            handle.write('escaped')\n"
        "    except OSError as error:\n"
        "        print('blocked', target, error)\n"
        "with open('inside.txt', 'w') as handle:\n"
        "    handle.write('fine')\n"
    )
    try:
        result, _ = await run(sandbox, program)
        assert result.status == "ok", result
        escapes = [target for target in targets if Path(target).exists()]
    finally:
        for target in targets:
            with contextlib.suppress(FileNotFoundError, PermissionError, OSError):
                Path(target).unlink()  # a read-only root (in a container) has none
    expect_contained(sandbox, escapes)


async def test_host_secrets_cannot_be_read(sandbox, token):
    secret = f"secret-{token}"
    readable = [Path(f"/tmp/lats-secret-{token}")]
    if os.geteuid() == 0:
        readable.append(Path.home() / f"lats-secret-{token}")  # root's home: closed to everyone else
    for path in readable:
        path.write_text(secret)
        path.chmod(0o644)
    program = (
        f"for path in {[str(p) for p in readable]!r} + ['/etc/shadow']:\n"
        "    try:\n"
        "        content = open(path).read()\n"
        "        print('READ', path, content if 'lats-secret' in path else len(content))\n"
        "    except OSError as error:\n"
        "        print('blocked', path, type(error).__name__)\n"
    )
    try:
        result, _ = await run(sandbox, program)
    finally:
        for path in readable:
            path.unlink(missing_ok=True)
    assert result.status == "ok", result
    escapes = [line for line in result.stdout.splitlines() if line.startswith("READ")]
    assert all(secret in line for line in escapes if "lats-secret" in line)
    expect_contained(sandbox, escapes)


async def test_no_connection_reaches_a_host_listener(sandbox, tcp_listener):
    program = (
        "import socket\n"
        f"for host in ('127.0.0.1', 'localhost'):\n"
        "    try:\n"
        f"        socket.create_connection((host, {tcp_listener.port}), timeout=1).close()\n"
        "        print('connected', host)\n"
        "    except OSError as error:\n"
        "        print('blocked', host, error)\n"
    )
    result, _ = await run(sandbox, program, limits=Limits(wall_seconds=5))
    assert result.status == "ok", result
    time.sleep(0.3)  # let the listener thread count a late accept
    expect_contained(
        sandbox, [f"{tcp_listener.connections} connection(s)"] if tcp_listener.connections else []
    )


async def test_no_dns_query_leaves_the_sandbox(sandbox, udp_listener):
    query = b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x07example\x03com\x00\x00\x01\x00\x01"
    program = (
        "import socket\n"
        "try:\n"
        "    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
        f"    sock.sendto({query!r}, ('127.0.0.1', {udp_listener.port}))\n"
        "    print('sent')\n"
        "except OSError as error:\n"
        "    print('blocked', error)\n"
    )
    result, _ = await run(sandbox, program)
    assert result.status == "ok", result
    time.sleep(0.3)
    expect_contained(sandbox, [f"{udp_listener.datagrams} datagram(s)"] if udp_listener.datagrams else [])


async def test_os_system_stays_inside(sandbox, token):
    secret_file = Path(f"/tmp/lats-secret-{token}")
    secret_file.write_text(f"secret-{token}")
    secret_file.chmod(0o644)
    marker = Path(f"/tmp/lats-escape-{token}-system")
    command = f"echo escaped > {marker}; cat {secret_file}"
    program = f"import os\nstatus = os.system({command!r})\nprint('status', status)\n"
    try:
        result, _ = await run(sandbox, program)
        escapes = []
        if marker.exists():
            escapes.append(f"{marker} written")
        if f"secret-{token}" in result.stdout:
            escapes.append("secret read")
    finally:
        secret_file.unlink(missing_ok=True)
        marker.unlink(missing_ok=True)
    assert result.status == "ok", result
    expect_contained(sandbox, escapes)


async def test_no_new_user_namespace_for_privileges(sandbox):
    program = (
        "import ctypes, os\n"
        "if os.fork() == 0:  # try in a child: success would change the caller's namespaces\n"
        "    os._exit(0 if ctypes.CDLL(None, use_errno=True).unshare(0x10000000) == 0 else 1)\n"
        "print('UNSHARE', os.waitstatus_to_exitcode(os.wait()[1]))\n"
    )
    result, _ = await run(sandbox, program)
    assert result.status == "ok", result
    expect_contained(sandbox, ["created a user namespace"] if "UNSHARE 0" in result.stdout else [])


def remove_shared_memory(stdout: str) -> None:
    import ctypes

    for line in stdout.splitlines():
        if line.startswith("SHM ") and int(line.split()[1]) >= 0:
            ctypes.CDLL(None).shmctl(int(line.split()[1]), 0, None)  # IPC_RMID


async def test_nothing_is_left_for_the_next_run(sandbox, token):
    places = ["left.txt", f"/tmp/left-{token}", f"/dev/shm/left-{token}", os.path.join("~", "left-home")]
    plant = (
        "import os, subprocess, ctypes\n"
        f"for place in {places!r}:\n"
        "    try:\n"
        "        with open(os.path.expanduser(place), 'w') as handle:\n"
        "            handle.write('planted')\n"
        "    except OSError:\n"
        "        pass\n"
        + SLEEPER_IN_A_SESSION_OF_ITS_OWN +
        "libc = ctypes.CDLL(None)\n"
        "print('SHM', libc.shmget(0, 4096, 0o1600))  # IPC_PRIVATE | IPC_CREAT | 0600\n"
    )
    look = (
        "import os\n"
        "found = []\n"
        f"for place in {places!r}:\n"
        "    if os.path.exists(os.path.expanduser(place)):\n"
        "        found.append(place)\n"
        "try:\n"
        "    found += ['shm ' + row for row in open('/proc/sysvipc/shm').read().splitlines()[1:]]\n"
        "except OSError:\n"
        "    pass\n"
        "print('FOUND', found)\n"
    )
    try:
        planted, _ = await run(sandbox, plant)
        assert planted.status == "ok", planted
        assert leftover_processes(sandbox) == []
        result, _ = await run(sandbox, look)
    finally:
        Path(f"/tmp/left-{token}").unlink(missing_ok=True)
        Path(f"/dev/shm/left-{token}").unlink(missing_ok=True)
        if not sandbox.secure:  # the control made the segment in the host's IPC namespace
            remove_shared_memory(planted.stdout)
    assert result.status == "ok", result
    found_line = next(line for line in result.stdout.splitlines() if line.startswith("FOUND"))
    escapes = [] if found_line == "FOUND []" else [found_line]
    expect_contained(sandbox, escapes)
