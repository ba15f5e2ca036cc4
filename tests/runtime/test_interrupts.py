"""Ctrl-C and SIGTERM stop long asyncio work at once, whichever thread the signal reaches."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import threading
import time

import pytest

from lats_runtime.interrupts import run_until_interrupted
from lats_runtime.processes import ServiceProcess, stop_all


def _signal_from_another_thread(number: int, after: float) -> threading.Thread:
    """A thread that, after `after` seconds, sends `number` to itself (not to the main thread),
    as the kernel may when a gRPC thread is the one not blocking it."""

    def send():
        time.sleep(after)
        signal.pthread_kill(threading.get_ident(), number)

    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_to_any_thread_stops_the_work_at_once_and_its_finally_blocks_run(number):
    cleaned = []

    async def work():
        try:
            await asyncio.sleep(8)  # a model call that is in no hurry
        finally:
            cleaned.append("finally")

    before = {n: signal.getsignal(n) for n in (signal.SIGINT, signal.SIGTERM)}
    thread = _signal_from_another_thread(number, 0.3)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt, match=f"signal {int(number)}"):
        run_until_interrupted(work())
    thread.join()
    assert time.monotonic() - started < 3, "the interrupt waited for the work's next event"
    assert cleaned == ["finally"]
    assert {n: signal.getsignal(n) for n in before} == before  # the caller's handlers are back


def test_work_that_ends_returns_its_value_and_cancellation_without_a_signal_stays_cancellation():
    async def answer():
        return 42

    assert run_until_interrupted(answer()) == 42

    async def cancelled():
        asyncio.current_task().cancel()
        await asyncio.sleep(1)

    with pytest.raises(asyncio.CancelledError):
        run_until_interrupted(cancelled())


def _sleeper(name: str, ignore_term: bool) -> ServiceProcess:
    code = ("import signal, time\n" + ("signal.signal(signal.SIGTERM, signal.SIG_IGN)\n" if ignore_term else "")
            + "print('ready', flush=True)\ntime.sleep(60)\n")
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "ready"
    return ServiceProcess(name=name, process=process, address="")


def test_an_interrupt_while_services_wind_down_kills_the_rest_at_once():
    slow = _sleeper("slow", ignore_term=True)  # stopped last... but reached first: it ignores SIGTERM
    other = _sleeper("other", ignore_term=False)
    _signal_from_another_thread(signal.SIGINT, 0.5)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        stop_all([other, slow])  # the last started (slow) first: a 15 s wait, cut short
    assert time.monotonic() - started < 5
    assert slow.process.poll() is not None and other.process.poll() is not None


def test_outside_the_main_thread_the_work_still_runs_with_the_callers_signals():
    answers = []

    async def answer():
        return 7

    thread = threading.Thread(target=lambda: answers.append(run_until_interrupted(answer())))
    thread.start()
    thread.join()
    assert answers == [7]
