"""Long asyncio work that Ctrl-C (SIGINT) or SIGTERM stops at once: `run_until_interrupted`.

`asyncio.run` handles SIGINT with a plain Python signal handler, which runs only
when the main thread next executes bytecode. A gRPC client's own threads may
receive the signal while the event loop sleeps in epoll waiting for a model
call, so the interrupt waited for the next event, minutes away (a bench ignored
Ctrl-C for as long as its current search ran). The event loop's own handlers
wake it through its signal file descriptor, whichever thread the signal reaches.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Coroutine
from typing import Any

STOPPING_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def run_until_interrupted(work: Coroutine[Any, Any, Any]) -> Any:
    """asyncio.run(work), cancelled the moment SIGINT or SIGTERM arrives; then KeyboardInterrupt.

    The cancellation reaches every task `work` awaits (open gRPC calls are
    cancelled, so their servers see the client go), and their `finally`
    blocks run before KeyboardInterrupt is raised here.
    """
    received: list[int] = []

    async def guarded() -> Any:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()

        def stop(number: int) -> None:
            received.append(number)
            task.cancel()

        previous = {number: signal.getsignal(number) for number in STOPPING_SIGNALS}
        watched = []
        for number in STOPPING_SIGNALS:
            try:
                loop.add_signal_handler(number, stop, number)
            except (ValueError, RuntimeError):  # not the main thread: signals stay the caller's
                break
            watched.append(number)
        try:
            return await work
        finally:
            for number in watched:
                loop.remove_signal_handler(number)
                signal.signal(number, previous[number])  # remove_signal_handler leaves the default

    try:
        return asyncio.run(guarded())
    except asyncio.CancelledError:
        if received:
            raise KeyboardInterrupt(f"signal {received[0]}") from None
        raise
