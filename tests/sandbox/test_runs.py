"""What a run reports, on every backend: per-test verdicts, errors, limits, worker recycling, fresh state."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest
import pytest_asyncio

from env_servers.sandbox import Limits, RunRequest, make_sandbox

pytestmark = pytest.mark.asyncio(loop_scope="module")

BACKENDS = ["bwrap", "docker", "process"]
ADD_ONE = "def f(x):\n    return x + 1\n"


def build(request, name: str, **options):
    if name == "docker":
        options["base_url"] = request.getfixturevalue("docker_url")
    return make_sandbox(name, allow_insecure=name == "process", **options)


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=BACKENDS)
async def sandbox(request):
    box = build(request, request.param, workers=1)
    yield box
    await box.aclose()


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    return request.param


async def run(sandbox, program: str, *tests: str, limits: Limits = Limits()):
    return await sandbox.run(RunRequest(program=program, tests=tests, limits=limits))


async def test_each_test_gets_its_own_verdict_and_the_actual_output(sandbox):
    result = await run(
        sandbox,
        ADD_ONE,
        "assert f(1) == 2",
        "assert f(2) == 5",
        "assert g(1) == 1",
        "assert f(0)",
        "assert f(-1)",
        "y = f(3)\nassert y == 4",
        "assert 1 / 0 == 1",
    )
    assert result.status == "ok"
    assert [t.passed for t in result.tests] == [True, False, False, True, False, True, False]
    assert result.tests[1].detail == "# output: 3"
    assert result.tests[2].detail == "NameError: name 'g' is not defined"
    assert result.tests[4].detail == "# output: 0"
    assert result.tests[6].detail == "ZeroDivisionError: division by zero"
    assert result.passed == 3 and not result.all_passed


async def test_all_passed_needs_every_test(sandbox):
    result = await run(sandbox, ADD_ONE, "assert f(1) == 2", "assert f(5) == 6")
    assert result.status == "ok" and result.all_passed and result.passed == 2


async def test_output_detail_uses_repr_and_is_capped(sandbox):
    result = await run(sandbox, "def f():\n    return 'a' * 5000\n", "assert f() == 'b'")
    detail = result.tests[0].detail
    assert detail.startswith("# output: 'aaa") and len(detail) < 1100


async def test_syntax_error_is_reported_with_the_compiler_message(sandbox):
    result = await run(sandbox, "def f(x)\n    return x\n", "assert f(1) == 1")
    assert result.status == "syntax_error"
    assert "SyntaxError" in result.stderr
    assert not result.tests[0].passed and "syntax error" in result.tests[0].detail


async def test_program_exception_is_an_error_with_its_traceback(sandbox):
    result = await run(sandbox, "import math\n\nvalue = math.sqrt(-1)\n", "assert True")
    assert result.status == "error"
    assert 'File "<program>", line 3' in result.stderr and "ValueError: math domain error" in result.stderr
    assert "worker_main" not in result.stderr
    assert not result.tests[0].passed


async def test_syntax_error_raised_while_running_is_an_error_not_a_syntax_error(sandbox):
    result = await run(sandbox, "value = eval('1 +')\n", "assert True")
    assert result.status == "error" and "SyntaxError" in result.stderr


async def test_a_test_that_loops_keeps_the_verdicts_before_it(sandbox):
    program = "def spin():\n    while True:\n        pass\n"
    result = await run(
        sandbox, program, "assert 1 == 1", "assert spin()", "assert 2 == 2", limits=Limits(wall_seconds=1.0)
    )
    assert result.status == "timeout"
    assert [t.passed for t in result.tests] == [True, False, False]
    assert "time limit" in result.tests[1].detail


async def test_cpu_limit_stops_a_busy_program_before_the_wall_limit(sandbox):
    started = time.monotonic()
    result = await run(sandbox, "while True:\n    pass\n", limits=Limits(wall_seconds=20, cpu_seconds=1))
    assert result.status == "timeout"
    assert time.monotonic() - started < 15  # well before the 20 s wall limit, even on a loaded machine


async def test_stdout_is_captured_and_stdin_is_empty(sandbox):
    program = "print('héllo')\ntry:\n    input()\nexcept EOFError:\n    print('no input')\n"
    result = await run(sandbox, program)
    assert result.status == "ok" and result.stdout == "héllo\nno input\n"


async def test_main_guard_does_not_run(sandbox):
    result = await run(
        sandbox, ADD_ONE + "if __name__ == '__main__':\n    raise SystemExit(3)\n", "assert f(1) == 2"
    )
    assert result.all_passed


async def test_tests_run_independently_of_each_other(sandbox):
    result = await run(sandbox, ADD_ONE, "f = None\nassert f is None", "assert f(1) == 2")
    assert result.all_passed


async def test_nothing_leaks_from_one_run_into_the_next(sandbox):
    first = await run(
        sandbox,
        "from typing import List\nimport builtins, sys\nbuiltins.LEAKED = 1\nsys.setrecursionlimit(60)\n"
        "def f(x: List[int]):\n    return x\n",
        "assert f([1]) == [1]",
    )
    assert first.all_passed
    uses_list = await run(sandbox, "def f(x: List[int]):\n    return x\n", "assert f([1]) == [1]")
    assert uses_list.status == "error" and "NameError: name 'List' is not defined" in uses_list.stderr
    later = await run(sandbox, "import sys\n", "assert LEAKED == 1", "assert sys.getrecursionlimit() == 1000")
    assert [t.passed for t in later.tests] == [False, True]
    assert "NameError" in later.tests[0].detail


async def test_the_same_program_gives_the_same_result_every_time(sandbox):
    results = [await run(sandbox, ADD_ONE, "assert f(1) == 2", "assert f(1) == 3") for _ in range(5)]
    assert {(r.status, tuple(t.passed for t in r.tests)) for r in results} == {("ok", (True, False))}


async def test_every_run_starts_from_the_same_random_state(sandbox):
    program = "import random\nFIRST = random.random()\ndef f():\n    return FIRST\n"
    tests = ("assert f() == 0.8444218515250481", "assert __import__('random').random() == -1")
    results = [await run(sandbox, program, *tests) for _ in range(3)]
    assert all(result.tests[0].passed for result in results), results  # the program: random.seed(0)
    drawn_by_tests = {result.tests[1].detail for result in results}
    assert len(drawn_by_tests) == 1 and "# output: 0." in drawn_by_tests.pop()


async def test_worker_killed_from_outside_is_replaced(request, backend):
    box = build(request, backend, workers=1)
    try:
        assert (await run(box, ADD_ONE, "assert f(1) == 2")).all_passed
        for pid in box.worker_host_pids():
            os.kill(pid, signal.SIGKILL)
        await asyncio.sleep(0.2)
        again = await run(box, ADD_ONE, "assert f(1) == 2")
        assert again.all_passed, again
        assert box.slots[0].starts == 2
    finally:
        await box.aclose()


async def test_worker_dying_mid_run_reads_as_crashed_and_is_replaced(request, backend):
    box = build(request, backend, workers=1)
    try:
        await box.start()
        pids = box.worker_host_pids()
        running = asyncio.ensure_future(
            run(box, "import time\ntime.sleep(30)\n", limits=Limits(wall_seconds=40))
        )
        await asyncio.sleep(0.5)
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        crashed = await asyncio.wait_for(running, 20)
        assert crashed.status == "crashed" and not crashed.all_passed
        assert (await run(box, ADD_ONE, "assert f(1) == 2")).all_passed
        assert box.slots[0].starts == 2
    finally:
        await box.aclose()


async def test_worker_is_recycled_after_n_runs(request, backend):
    box = build(request, backend, workers=1, recycle_after=3)
    try:
        for _ in range(7):
            assert (await run(box, ADD_ONE, "assert f(1) == 2")).all_passed
        assert box.slots[0].starts == 3
    finally:
        await box.aclose()


async def test_two_workers_run_in_parallel(request, backend):
    box = build(request, backend, workers=2)
    try:
        await box.start()
        program = "import time\ntime.sleep(1.0)\n" + ADD_ONE
        started = time.monotonic()
        results = await asyncio.gather(*(run(box, program, "assert f(1) == 2") for _ in range(4)))
        elapsed = time.monotonic() - started
        assert all(r.all_passed for r in results)
        assert 2.0 <= elapsed < 3.5  # two rounds of two; four in a row would take 4 s
        assert len(set(box.slot_uids())) == 2 or box.slot_uids() == [None, None]
    finally:
        await box.aclose()


async def test_the_hosts_environment_does_not_reach_the_program(request, backend, monkeypatch):
    monkeypatch.setenv("LATS_HOST_ONLY_SECRET", "hunter2")
    box = build(request, backend, workers=1)
    try:
        program = "import os\nprint(sorted(os.environ))\nprint(os.environ.get('LATS_HOST_ONLY_SECRET'))\n"
        result = await run(box, program)
    finally:
        await box.aclose()
    assert result.status == "ok"
    assert "LATS_HOST_ONLY_SECRET" not in result.stdout and "hunter2" not in result.stdout


async def test_closing_the_sandbox_leaves_no_process_of_its_uids(request, backend):
    from env_servers.sandbox.uids import processes_of_uid

    box = build(request, backend, workers=2)
    await box.start()
    uids = box.host_uids()
    if not uids:
        await box.aclose()
        pytest.skip("this backend runs as the invoking user here (no per-slot uid)")
    assert all(processes_of_uid(uid) for uid in box.slot_uids())  # the check sees the live workers
    await box.aclose()
    deadline = time.monotonic() + 5
    while any(processes_of_uid(uid) for uid in uids) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert [pid for uid in uids for pid in processes_of_uid(uid)] == []


async def test_the_tasks_setup_reaches_the_program_and_the_tests(sandbox):
    """Setup code (a task's own helpers and imports) runs before the program and again for the tests."""
    setup = "import math\n\ndef shift(text, by):\n    return ''.join(chr(ord(c) + by) for c in text)\n"
    program = "def unshift(text):\n    return shift(text, -1)\n"  # uses the helper without defining it
    result = await sandbox.run(RunRequest(
        program=program, tests=("assert unshift(shift('abc', 1)) == 'abc'", "assert math.floor(2.5) == 2"),
        setup=setup, entry_points=("unshift",)))  # fmt: skip
    assert result.all_passed, result
    broken = await sandbox.run(RunRequest(program="x = 1\n", tests=("assert True",), setup="raise ValueError('x')\n"))
    assert broken.status == "error" and "ValueError" in broken.stderr


async def test_untrusted_tests_follow_the_trusted_ones(sandbox):
    result = await sandbox.run(RunRequest(
        program=ADD_ONE, tests=("assert f(1) == 2", "assert f(1) == 3"),
        untrusted_tests=("assert f(2) == 3", "assert f(2) == 4", "print('from a test')\nassert g(1)")))  # fmt: skip
    assert result.status == "ok", result
    assert [t.test for t in result.tests] == [
        "assert f(1) == 2", "assert f(1) == 3", "assert f(2) == 3", "assert f(2) == 4", "print('from a test')\nassert g(1)"]
    assert [t.passed for t in result.tests] == [True, False, True, False, False]
    assert result.tests[3].detail == "# output: 3"
    assert "NameError" in result.tests[4].detail and "from a test" in result.stdout


async def test_what_a_run_leaves_never_reaches_the_next_run(request, backend):
    box = build(request, backend, workers=1)
    try:
        for _ in range(3):
            assert (await run(box, ADD_ONE, "assert f(1) == 2")).all_passed
        assert box.slots[0].starts == 1  # clean runs keep their worker
        # a file and a thread: on bwrap and docker both are the run's own (its tmpfs, its PID namespace) and
        # die with it, so the worker stays; the process backend checks nothing (and wipes)
        leave = "import threading\nthreading.Thread(target=int).start()\nopen('left', 'w').write('x')\n"
        assert (await run(box, leave + ADD_ONE, "assert f(1) == 2")).all_passed
        assert (await run(box, ADD_ONE, "assert f(1) == 2")).all_passed
        assert box.slots[0].starts == 1
        look = await run(box, "import os\nprint(os.listdir('.'))\n")
        assert look.stdout == "[]\n"
    finally:
        await box.aclose()
