"""Find a Docker engine, or start a private dockerd for the sandbox (root only).

The private engine needs no host network setup: `--iptables=false
--ip6tables=false --bridge=none` (containers use network "none"), its own data
root (kept in the cache dir, so imported images survive restarts), exec root,
pidfile and unix socket. overlay2 is tried first, then vfs.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

PRIVATE_SOCKET = "/run/lats-sandbox/docker.sock"
STORAGE_DRIVERS = ("overlay2", "vfs")


def cache_dir() -> Path:
    """Where the sandbox keeps its rootfs tarball and the private engine's data root."""
    configured = os.environ.get("LATS_SANDBOX_CACHE")
    if configured:
        return Path(configured)
    if os.geteuid() == 0:
        return Path("/var/cache/lats-sandbox")
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "lats-sandbox"


def engine_answers(base_url: str, timeout: float = 3.0) -> bool:
    """True if a Docker engine answers a ping at `base_url`."""
    import docker

    try:
        client = docker.DockerClient(base_url=base_url, timeout=timeout)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:
        return False


def candidate_urls() -> list[str]:
    """Engines to try, in order: DOCKER_HOST, the private socket, the system socket."""
    urls = []
    if os.environ.get("DOCKER_HOST"):
        urls.append(os.environ["DOCKER_HOST"])
    urls += [f"unix://{PRIVATE_SOCKET}", "unix:///var/run/docker.sock"]
    return urls


def find_engine() -> str | None:
    """The first base URL at which an engine answers, or None."""
    return next((url for url in candidate_urls() if engine_answers(url)), None)


@dataclass
class PrivateDockerd:
    """A dockerd this process started; `stop()` ends it and its containerd."""

    process: subprocess.Popen
    base_url: str
    storage_driver: str
    log_path: Path

    def stop(self, timeout: float = 20.0) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


class EngineUnavailable(RuntimeError):
    """No engine answers and none could be started; the message has the evidence."""


def start_private_dockerd(socket_path: str = PRIVATE_SOCKET, wait_seconds: float = 60.0) -> PrivateDockerd:
    """Start dockerd on `socket_path` (root only); try overlay2, then vfs."""
    if os.geteuid() != 0:
        raise EngineUnavailable(
            "starting a private dockerd needs root; start Docker yourself or set DOCKER_HOST"
        )
    dockerd = shutil.which("dockerd")
    if dockerd is None:
        raise EngineUnavailable(
            "dockerd is not installed: run `make setup` (installs the Debian package docker.io)"
        )
    base = cache_dir() / "docker"
    run_dir = Path(socket_path).parent
    run_dir.mkdir(parents=True, exist_ok=True)
    failures = []
    for driver in STORAGE_DRIVERS:
        data_root = base / driver
        data_root.mkdir(parents=True, exist_ok=True)
        log_path = run_dir / f"dockerd-{driver}.log"
        argv = [
            dockerd,
            "--iptables=false",
            "--ip6tables=false",
            "--bridge=none",
            f"--storage-driver={driver}",
            f"--data-root={data_root}",
            f"--exec-root={run_dir / 'exec'}",
            f"--pidfile={run_dir / 'dockerd.pid'}",
            f"--host=unix://{socket_path}",
        ]
        with open(log_path, "wb") as log:
            process = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        deadline = time.monotonic() + wait_seconds
        while time.monotonic() < deadline and process.poll() is None:
            if engine_answers(f"unix://{socket_path}", timeout=2.0):
                return PrivateDockerd(process, f"unix://{socket_path}", driver, log_path)
            time.sleep(0.25)
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        tail = log_path.read_text(errors="replace")[-1500:]
        failures.append(f"--storage-driver={driver}: exited {process.returncode}; log tail:\n{tail}")
    raise EngineUnavailable("dockerd did not start:\n" + "\n".join(failures))
