"""Starting LATS services as separate processes (demo, end-to-end tests, benchmarks).

`start_service(args)` runs `python -m lats serve ...ARGS --port 0` in a new
process, reads the address it prints ("listening on HOST:PORT"), waits until
its health check answers SERVING (gRPC health: the service's readiness, e.g.
lats.v1.Planner, or with `ready=False` its liveness ""; GET /healthz for the
run viewer, `lats serve ui`, and GET /health for `lats serve openenv`), and
returns a handle whose `stop()` sends
SIGTERM and waits for a clean exit. A service never outlives the process
that started it: the kernel sends it SIGTERM when its parent dies, however
the parent died (PR_SET_PDEATHSIG, via setpriv), and `stop_on_signals` turns SIGTERM into
the same orderly stop as Ctrl-C for a command that starts services.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import deque
from dataclasses import dataclass, field

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from lats_pb import llm_pb2, planner_pb2

from lats_runtime import environment_versions

_LISTENING = re.compile(r"listening on (\S+:\d+)")
_METRICS = re.compile(r"metrics on (http://[^\s\"',]+)")  # also inside a JSON log line
# The health service name of each kind of server's readiness (`lats serve KIND`).
READINESS = {
    "env": environment_versions.SERVICE,
    "gateway": llm_pb2.DESCRIPTOR.services_by_name["LlmGateway"].full_name,
    "planner": planner_pb2.DESCRIPTOR.services_by_name["Planner"].full_name,
}


class ServiceStartError(RuntimeError):
    """A service process exited or did not become healthy in time."""


@dataclass
class ServiceProcess:
    name: str
    process: subprocess.Popen
    address: str
    output: deque = field(default_factory=lambda: deque(maxlen=200))

    def stop(self, timeout: float = 15.0) -> int:
        """SIGTERM, wait for exit (SIGKILL after `timeout`); returns the exit code."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    def kill(self) -> None:
        """SIGKILL now (if still running) and reap."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()

    def log_tail(self) -> str:
        return "".join(self.output)

    @property
    def metrics_url(self) -> str | None:
        """Where the service serves Prometheus metrics, if it was started with --metrics-port."""
        for line in list(self.output):
            match = _METRICS.search(line)
            if match:
                return match.group(1)
        return None


def _die_with_parent() -> list[str]:
    """A command prefix that has the kernel SIGTERM the child when its parent
    dies (util-linux setpriv; none where it is missing)."""
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "TERM", "--"] if setpriv else []


@contextlib.contextmanager
def stop_on_signals():
    """SIGTERM raises KeyboardInterrupt in the main thread, as Ctrl-C does, so
    `with running_services(...)` blocks stop their services on the way out."""

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _pump(stream, sink: deque, echo) -> None:
    for line in iter(stream.readline, ""):
        sink.append(line)
        if echo is not None:
            echo.write(line)
            echo.flush()


def wait_healthy(address: str, timeout: float, service: str = "") -> None:
    """Returns once the gRPC health service at `address` answers SERVING for
    `service` ("": the server as a whole)."""
    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while True:
            try:
                reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=2)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            if time.monotonic() > deadline:
                what = f"{service} at {address} did not become ready" if service else \
                    f"{address} did not become healthy"
                raise ServiceStartError(f"{what} in {timeout:.0f}s")
            time.sleep(0.1)


def wait_http_healthy(address: str, timeout: float, path: str = "/healthz") -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"http://{address}{path}", timeout=2) as reply:
                if reply.status == 200:
                    return
        except (OSError, urllib.error.URLError):
            pass
        if time.monotonic() > deadline:
            raise ServiceStartError(f"{address} did not become healthy in {timeout:.0f}s")
        time.sleep(0.1)


def start_service(name: str, args: list[str], *, host: str = "127.0.0.1",
                  timeout: float = 120.0, env: dict | None = None,
                  echo=None, python: str | None = None, ready: bool = True) -> ServiceProcess:
    """Starts `lats serve <args> --host HOST --port 0` and waits until it is healthy:
    ready (e.g. a planner's gateway answers), or with `ready=False` only alive.

    `python` is the interpreter that runs it (default: this one), e.g. another
    virtual environment's."""
    command = [python or sys.executable, "-m", "lats", "serve", *args, "--host", host,
               "--port", "0"]
    process = subprocess.Popen(
        [*_die_with_parent(), *command], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})
    output: deque = deque(maxlen=200)
    deadline = time.monotonic() + timeout
    address = None
    while address is None:
        line = process.stdout.readline()
        if not line:
            process.wait()
            raise ServiceStartError(
                f"{name} exited with code {process.returncode}:\n{''.join(output)}")
        output.append(line)
        if echo is not None:
            echo.write(line)
        match = _LISTENING.search(line)
        if match:
            address = match.group(1)
        elif time.monotonic() > deadline:
            process.kill()
            raise ServiceStartError(f"{name} did not start in {timeout:.0f}s:\n{''.join(output)}")
    threading.Thread(target=_pump, args=(process.stdout, output, echo), daemon=True).start()
    service = ServiceProcess(name, process, address, output)
    try:
        remaining = max(5.0, deadline - time.monotonic())
        if args[:1] == ["ui"]:
            wait_http_healthy(address, remaining)
        elif args[:1] == ["openenv"]:                  # OpenEnv's own health route
            wait_http_healthy(address, remaining, "/health")
        else:
            wait_healthy(address, remaining, READINESS.get(args[0], "") if ready else "")
    except ServiceStartError:
        service.stop()
        raise
    return service


@contextlib.contextmanager
def running_services(specs: list[tuple[str, list[str]]], **kwargs):
    """Starts services in order (later args may use "{name}" of earlier ones'
    addresses) and stops them all, in reverse order, on exit."""
    started: list[ServiceProcess] = []
    try:
        addresses: dict[str, str] = {}
        for name, args in specs:
            service = start_service(name, [a.format(**addresses) for a in args], **kwargs)
            addresses[name] = service.address
            started.append(service)
        yield {s.name: s for s in started}
    finally:
        stop_all(started)


def stop_all(services: list[ServiceProcess]) -> None:
    """Stops each service, the last started first; an interrupt (a second Ctrl-C) while
    one winds down kills it and every one left at once, and the interrupt goes on up."""
    remaining = list(reversed(services))
    try:
        while remaining:
            remaining[0].stop()
            remaining.pop(0)
    except KeyboardInterrupt:
        for service in remaining:
            service.kill()
        raise
