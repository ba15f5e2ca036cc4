"""How long a fresh sandbox pool takes to its first run, and a warm run after it, per backend.

    python bench/bench_sandbox_start.py --backends docker bwrap --pools 3

Each pool has one worker; the first run includes starting it (for docker,
creating the container and, with runs in namespaces of their own, copying
the sandbox's tree into its memory). Prints seconds per pool.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from env_servers.sandbox import RunRequest, make_sandbox

REQUEST = RunRequest(program="def f(x):\n    return x\n", tests=("assert f(1) == 1",))


async def timed_run(sandbox) -> float:
    started = time.monotonic()
    result = await sandbox.run(REQUEST)
    if result.status != "ok" or not result.all_passed:
        raise SystemExit(f"the timing run failed: {result}")
    return time.monotonic() - started


async def measure(backend: str, pools: int) -> list[tuple[float, float]]:
    """(first run's seconds, a warm run's seconds) for `pools` fresh pools of one worker."""
    found = []
    for _ in range(pools):
        sandbox = make_sandbox(backend, workers=1)
        try:
            found.append((await timed_run(sandbox), await timed_run(sandbox)))
        finally:
            await sandbox.aclose()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", nargs="+", default=["docker"])
    parser.add_argument("--pools", type=int, default=3)
    options = parser.parse_args()
    print(f"{'backend':10} {'first run s':>12} {'warm run ms':>12}")
    for backend in options.backends:
        for first, warm in asyncio.run(measure(backend, options.pools)):
            print(f"{backend:10} {first:12.2f} {warm * 1000:12.1f}")


if __name__ == "__main__":
    main()
