"""Judged runs per second, for each available backend and worker design, with 1 and 2 workers.

Each backend runs with the split design (the judge and the program in
separate processes, the production worker) and the shared design (tests in
the program's own process, as the sandbox first did: the tests' insecure
control, tests/sandbox/control) in the same run, and the ratio split/shared
is printed, so a noisy machine shifts both alike.

A "run" is one program plus its tests in a fresh process inside the sandbox
(the unit the code-runner environment pays per Step). The program and its five
asserts are HumanEval-sized. Runs are issued back to back, `workers` at a time.
`--tests trusted` (the default) sends the asserts as trusted tests, as Score
sends hidden tests; `--tests untrusted` as a model's own, as a Step and the
answer-key probes send theirs (most of a search's runs).

Besides runs/s it prints the CPU one run costs (this process, the workers and
their runs, and for docker the engine's dockerd/containerd processes that relay
the streams) and, once the workers can fill every core, the runs/s that cost
allows on an idle machine. On a shared machine the wall-clock figures drop with
other load, the CPU cost much less; as root, `chrt -f 10 python
bench/bench_sandbox.py --backends bwrap` gives the bwrap workers priority over
other load (docker's containers are started by the engine and do not inherit it).

    python bench/bench_sandbox.py                 # bwrap, and docker if an engine answers
    python bench/bench_sandbox.py --runs 2000 --backends bwrap
    python bench/bench_sandbox.py --start-dockerd # root: start a private dockerd if none answers
    python bench/bench_sandbox.py --floor         # also: what forking alone costs each design

`--floor` loads the worker's code in the sandbox's python3 (outside any
sandbox, no run's work) and times only its processes: one fork and exit per
run for the shared design, a judge that forks a candidate for the split one.
That much of the difference between the designs no work in either can remove.

The machine's load average is printed first: other work on the two cores
lowers the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

# The repository's root, for `python bench/bench_sandbox.py` run from anywhere: the insecure
# control this measures the split design against lives with the tests (tests/sandbox/control).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from env_servers.sandbox import RunRequest, SandboxUnavailable, make_sandbox  # noqa: E402
from env_servers.sandbox.engine import EngineUnavailable, find_engine, start_private_dockerd  # noqa: E402
from env_servers.sandbox.worker_script import SPLIT, WorkerDesign  # noqa: E402
from tests.sandbox.control import SHARED  # noqa: E402

DESIGNS = {design.name: design for design in (SPLIT, SHARED)}

PROGRAM = '''from typing import List


def has_close_elements(numbers: List[float], threshold: float) -> bool:
    """Check if in given list of numbers, are any two numbers closer to each other than threshold."""
    for idx, elem in enumerate(numbers):
        for idx2, elem2 in enumerate(numbers):
            if idx != idx2 and abs(elem - elem2) < threshold:
                return True
    return False
'''
TESTS = (
    "assert has_close_elements([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3) == True",
    "assert has_close_elements([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.05) == False",
    "assert has_close_elements([1.0, 2.0, 5.9, 4.0, 5.0], 0.95) == True",
    "assert has_close_elements([1.0, 2.0, 5.9, 4.0, 5.0], 0.8) == False",
    "assert has_close_elements([1.1, 2.2, 3.1, 4.1, 5.1], 1.0) == True",
)


TICKS = os.sysconf("SC_CLK_TCK")
ENGINE_COMMANDS = {"dockerd", "containerd", "containerd-shim", "containerd-shim-runc-v2"}


def _stat(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat") as handle:
        return handle.read().rsplit(")", 1)[1].split()


def _cpu_seconds(pids: list[int]) -> dict[int, float]:
    """CPU of each live process and of the children it has reaped."""
    seconds = {}
    for pid in pids:
        try:
            seconds[pid] = sum(int(value) for value in _stat(pid)[11:15]) / TICKS
        except OSError:
            continue
    return seconds


def _processes() -> dict[int, tuple[int, str]]:
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = _stat(int(entry))
                with open(f"/proc/{entry}/comm") as handle:
                    found[int(entry)] = (int(fields[1]), handle.read().strip())
            except OSError:
                continue
    return found


def accounted_pids(sandbox) -> list[int]:
    """The workers (inside bwrap: the child of bwrap), and their sole child where runs have namespaces of
    their own (bwrap, docker: the supervisor, whose reaped judges its times include), plus a docker engine's
    processes."""
    processes = _processes()
    roots = set(sandbox.worker_host_pids())
    if sandbox.name == "bwrap":
        roots = {pid for pid, (parent, _) in processes.items() if parent in roots}
    if sandbox.launcher.run_namespaces:
        roots |= {pid for pid, (parent, _) in processes.items() if parent in roots}
    if sandbox.name == "docker":
        roots |= {pid for pid, (_, command) in processes.items() if command in ENGINE_COMMANDS}
    return sorted(roots)


def process_cpu() -> float:
    times = os.times()
    return times.user + times.system


async def measure(
    backend: str, design: WorkerDesign, workers: int, runs: int, options: dict, tests: str = "trusted"
) -> tuple[float, float, float]:
    """Return (runs per second, median latency in ms, CPU ms per run) after a warm-up."""
    sandbox = make_sandbox(backend, workers=workers, recycle_after=10**9, design=design, **options)
    if tests == "trusted":
        request = RunRequest(program=PROGRAM, tests=TESTS)
    else:
        request = RunRequest(program=PROGRAM, tests=(), untrusted_tests=TESTS)
    latencies: list[float] = []

    async def client(count: int) -> None:
        for _ in range(count):
            started = time.perf_counter()
            result = await sandbox.run(request)
            latencies.append(time.perf_counter() - started)
            if not result.all_passed:
                raise RuntimeError(f"benchmark run failed on {backend}: {result}")

    try:
        await sandbox.start()
        await asyncio.gather(*(client(20) for _ in range(workers)))  # warm-up
        latencies.clear()
        pids = accounted_pids(sandbox)
        own_before, others_before = process_cpu(), _cpu_seconds(pids)
        started = time.perf_counter()
        await asyncio.gather(*(client(runs // workers) for _ in range(workers)))
        elapsed = time.perf_counter() - started
        own_after, others_after = process_cpu(), _cpu_seconds(pids)
        cpu = own_after - own_before
        cpu += sum(others_after[pid] - others_before[pid] for pid in others_after if pid in others_before)
    finally:
        await sandbox.aclose()
    count = len(latencies)
    return count / elapsed, 1000 * statistics.median(latencies), 1000 * cpu / count


FLOOR_PROGRAM = r'''
import gc, marshal, os, resource, sys
source = sys.stdin.buffer.read()
code_r, code_w = os.pipe()
if os.fork() == 0:  # compiled apart, as the worker's bootstrap does: no compiler garbage in this process
    data = marshal.dumps(compile(source, "<sandbox worker>", "exec"))
    while data:
        data = data[os.write(code_w, data):]
    os._exit(0)
os.close(code_w)
del source
data = b"".join(iter(lambda: os.read(code_r, 1 << 20), b""))
os.wait()
namespace = {"__name__": "__sandbox_worker__"}
exec(marshal.loads(data), namespace)
del data
namespace["warm_up"]()
gc.collect()
gc.freeze()
def cpu():
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
def shared():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
def split():
    pid = os.fork()
    if pid == 0:
        candidate = os.fork()
        if candidate == 0:
            os._exit(0)
        os.waitpid(candidate, 0)
        os._exit(0)
    os.waitpid(pid, 0)
for design, run in (("split", split), ("shared", shared)) * 2:
    started = cpu()
    for _ in range(RUNS):
        run()
    print(design, 1000 * (cpu() - started) / RUNS, flush=True)
'''


def floor(runs: int, python: str = "/usr/bin/python3") -> dict[str, float]:
    """CPU ms per run of the designs' processes alone (the median of two rounds each)."""
    import subprocess

    from env_servers.sandbox.worker_script import worker_source

    program = FLOOR_PROGRAM.replace("RUNS", str(runs))
    output = subprocess.run(
        [python, "-I", "-c", program], input=worker_source(SPLIT).encode(), capture_output=True, check=True
    ).stdout.decode()
    figures: dict[str, list[float]] = {}
    for line in output.splitlines():
        design, milliseconds = line.split()
        figures.setdefault(design, []).append(float(milliseconds))
    return {design: statistics.median(values) for design, values in figures.items()}


def docker_options(start: bool) -> tuple[dict | None, str, object]:
    url = find_engine()
    if url is None and start:
        try:
            engine = start_private_dockerd()
        except EngineUnavailable as error:
            return None, f"dockerd could not start: {error}", None
        return {"base_url": engine.base_url}, "", engine
    if url is None:
        return None, "no Docker engine answers (try --start-dockerd as root)", None
    return {"base_url": url}, "", None


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=1000, help="measured runs per configuration")
    parser.add_argument(
        "--backends", nargs="+", default=["bwrap", "docker"], choices=["bwrap", "docker", "process"]
    )
    parser.add_argument("--workers", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--designs", nargs="+", default=list(DESIGNS), choices=list(DESIGNS))
    parser.add_argument(
        "--start-dockerd", action="store_true", help="start a private dockerd if none answers (root)"
    )
    parser.add_argument("--floor", action="store_true", help="also time the designs' forks alone")
    parser.add_argument(
        "--tests", default="trusted", choices=["trusted", "untrusted"],
        help="send the asserts as trusted tests (Score's shape) or as a model's own (a Step's)",
    )
    return parser.parse_args()


def print_header() -> None:
    """The machine's cores and load, then the table's column names."""
    print(f"cores: {os.cpu_count()}, load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    header = ("backend", "design", "workers", "runs/s", "median ms", "cpu ms/run", "cpu-bound runs/s")
    print(
        f"{header[0]:20} {header[1]:>7} {header[2]:>7} {header[3]:>8} {header[4]:>10} {header[5]:>11} {header[6]:>17}"
    )


def measure_backend(backend: str, options: dict, args: argparse.Namespace) -> dict[tuple[str, int], float]:
    """Runs/s of each (design, workers) on one backend, each printed as a row as it is measured.

    A sandbox that turns out unavailable is printed, and the remaining designs
    at that worker count are skipped."""
    cores = os.cpu_count() or 1
    rates: dict[tuple[str, int], float] = {}
    for workers in args.workers:
        for design in args.designs:
            try:
                rate, median, cpu = asyncio.run(
                    measure(backend, DESIGNS[design], workers, args.runs, dict(options), args.tests)
                )
            except SandboxUnavailable as error:
                print(f"{backend:20} unavailable: {error}")
                break
            rates[design, workers] = rate
            label = backend + (" (INSECURE)" if backend == "process" else "")
            bound = f"{cores * 1000 / cpu:.0f}" if workers >= cores else "-"
            print(
                f"{label:20} {design:>7} {workers:>7} {rate:>8.0f} {median:>10.2f} {cpu:>11.2f} {bound:>17}",
                flush=True,
            )
    return rates


def print_ratios(rates: dict[tuple[str, str, int], float]) -> None:
    """split/shared for every backend and worker count that measured both."""
    for (backend, design, workers), rate in rates.items():
        shared = rates.get((backend, "shared", workers))
        if design == "split" and shared:
            print(f"{backend} with {workers} worker(s): split/shared = {rate / shared:.2f}")


def print_floor(runs: int) -> None:
    figures = floor(runs)
    print(
        f"forking alone, CPU ms per run: split {figures['split']:.2f}, shared {figures['shared']:.2f} "
        f"(split costs {figures['split'] - figures['shared']:.2f} ms more before any work)"
    )


def main() -> None:
    args = parse_arguments()
    print_header()
    rates: dict[tuple[str, str, int], float] = {}
    started_engine = None
    try:
        for backend in args.backends:
            options: dict = {}
            if backend == "docker":
                options, reason, started_engine = docker_options(args.start_dockerd)
                if options is None:
                    print(f"{backend:20} unavailable: {reason}")
                    continue
            if backend == "process":
                options["allow_insecure"] = True
            for (design, workers), rate in measure_backend(backend, options, args).items():
                rates[backend, design, workers] = rate
        print_ratios(rates)
        if args.floor:
            print_floor(min(args.runs, 500))
    finally:
        if started_engine is not None:
            started_engine.stop()


if __name__ == "__main__":
    main()
