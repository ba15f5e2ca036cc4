"""What observability costs per call: an environment server with and without it.

One process, the game24 environment servicer on two loopback servers: a bare
grpc.aio server, and one built by lats_runtime.serving (the observing
interceptor: run scope, Prometheus counters and histogram, one access-log
line per call, here as JSON lines to /dev/null; plus the deadline
interceptor). The same client calls Step (one action on a signed
blob) on each, sequentially and with 16 in flight, inside a run scope so
the run id travels as metadata; the two servers take turns, 5 rounds, and the
median of each is kept. Prints calls/s and the added microseconds per call,
as ratios within one run. A script, not a test:
    python bench/bench_observability.py [--calls 2000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import time

import grpc

from env_servers.core import EnvironmentServicer, EnvSettings, environment_service
from env_servers.game24.domain import Game24Domain
from lats_pb import environment_pb2 as env_pb
from lats_pb import environment_pb2_grpc as env_grpc
from lats_runtime.calls import ServiceClient
from lats_runtime.logs import configure_logging
from lats_runtime.run_context import run_scope
from lats_runtime.serving import ServerOptions, start_server


async def bare_server(servicer) -> tuple[grpc.aio.Server, int]:
    server = grpc.aio.server()
    environment_service(servicer).register(server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, port


async def measure(address: str, calls: int, concurrency: int) -> float:
    client = ServiceClient("environment", address, env_grpc.EnvironmentStub, timeout=30)
    reset = await client.unary("Reset", env_pb.ResetRequest(task_id="game24/900"))
    request = env_pb.StepRequest(actions=["4 + 5 = 9 (left: 6 9 10)"], snapshot=reset.snapshot)
    for _ in range(200):                                   # warm up
        await client.unary("Step", request)
    left = calls

    async def worker():
        nonlocal left
        while left > 0:
            left -= 1
            await client.unary("Step", request)

    begin = time.perf_counter()
    with run_scope("bench-observability"):
        await asyncio.gather(*(worker() for _ in range(concurrency)))
    seconds = time.perf_counter() - begin
    await client.aclose()
    return calls / seconds


async def main(calls: int, rounds: int) -> None:
    configure_logging("INFO", "json")
    for handler in logging.getLogger().handlers:
        if getattr(handler, "_lats_handler", False):
            handler.setStream(open(os.devnull, "w"))   # noqa: SIM115 - lives as long as the run
    servicer = EnvironmentServicer(Game24Domain(), EnvSettings(snapshot_key="bench"))
    bare, bare_port = await bare_server(servicer)
    observed = await start_server([environment_service(servicer)],
                                  ServerOptions(address="127.0.0.1:0"))
    print(f"Step calls on game24, {calls} per measurement, median of {rounds} rounds, "
          "one process, loopback")
    print(f"{'in flight':>9}  {'bare calls/s':>12}  {'observed calls/s':>16}  {'ratio':>6}  "
          f"{'added µs/call':>13}")
    for concurrency in (1, 16):
        plains, seens = [], []
        for _ in range(rounds):
            plains.append(await measure(f"127.0.0.1:{bare_port}", calls, concurrency))
            seens.append(await measure(f"127.0.0.1:{observed.port}", calls, concurrency))
        plain, seen = statistics.median(plains), statistics.median(seens)
        added = (1 / seen - 1 / plain) * 1e6
        print(f"{concurrency:>9}  {plain:>12.0f}  {seen:>16.0f}  {seen / plain:>6.2f}  "
              f"{added:>13.0f}")
    await observed.stop(0)
    await bare.stop(0)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.calls, arguments.rounds))
