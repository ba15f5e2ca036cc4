"""Fixtures of the sandbox tests: a Docker engine, host-side listeners."""

from __future__ import annotations

import socket
import threading

import pytest
import pytest_asyncio

from tests.sandbox.hazard_kit import HAZARD_BACKENDS, hazard_box
from tests.sandbox.engines import PREPARATION, PREPARATION_TIMEOUT



def _needs_docker(item) -> bool:
    callspec = getattr(item, "callspec", None)
    return "docker_url" in getattr(item, "fixturenames", ()) or (
        callspec is not None and "docker" in callspec.params.values()
    )


@pytest.hookimpl(trylast=True)  # after pytest has put the items in their final order
def pytest_collection_modifyitems(session, config, items):
    """Start preparing Docker (engine, image) now if any selected test needs it.

    The first such test waits for it: its time limit covers a first image build.
    """
    docker_items = [item for item in items if _needs_docker(item)]
    if docker_items and not config.option.collectonly:
        PREPARATION.start()
        docker_items[0].add_marker(pytest.mark.timeout(PREPARATION_TIMEOUT + 120))


def pytest_sessionfinish(session, exitstatus):
    PREPARATION.stop()


@pytest.fixture(scope="session")
def docker_url() -> str:
    return PREPARATION.wait()


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=HAZARD_BACKENDS)
async def hazard_sandbox(request):
    """One worker of each secure backend, and the unsandboxed control."""
    box = hazard_box(request)
    yield box
    await box.aclose()


class TcpListener:
    """A listener on the host's 127.0.0.1 that counts accepted connections."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self):
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self):
        self._stop.set()
        self._thread.join()
        self.sock.close()


class UdpListener:
    """A UDP socket on the host's 127.0.0.1 (a stand-in DNS server) that counts datagrams."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.datagrams = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._receive, daemon=True)
        self._thread.start()

    def _receive(self):
        while not self._stop.is_set():
            try:
                self.sock.recvfrom(4096)
            except OSError:
                continue
            self.datagrams += 1

    def close(self):
        self._stop.set()
        self._thread.join()
        self.sock.close()


@pytest.fixture
def tcp_listener():
    listener = TcpListener()
    yield listener
    listener.close()


@pytest.fixture
def udp_listener():
    listener = UdpListener()
    yield listener
    listener.close()
