"""A Docker engine with the sandbox image, for the tests.

Reuse an engine that answers, or start a private dockerd (root only); build
the image if it is missing (debootstrap: a minute or more on a fresh machine).
`DockerPreparation` does this in a background thread as soon as the selected
tests are known, so the build overlaps the tests that run before the docker
ones. On CI (CI=true) or with LATS_REQUIRE_DOCKER=1 an engine that cannot be
had fails the docker tests instead of skipping them.
"""

from __future__ import annotations

import os
import shutil
import threading

import pytest

from env_servers.sandbox.engine import EngineUnavailable, PrivateDockerd, find_engine, start_private_dockerd
from env_servers.sandbox.image import ensure_image
from env_servers.sandbox.rootfs import RootfsUnavailable

PREPARATION_TIMEOUT = 900.0


def docker_required() -> bool:
    return os.environ.get("LATS_REQUIRE_DOCKER") == "1" or os.environ.get("CI", "").lower() == "true"


class DockerPreparation:
    """Find or start an engine and make sure it has the image, once, in the background."""

    def __init__(self):
        self.url: str | None = None
        self.reason = ""
        self.started: PrivateDockerd | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._prepare, name="docker-preparation", daemon=True)
                self._thread.start()

    def _prepare(self) -> None:
        import docker

        try:
            url = find_engine()
            if url is None:
                if os.geteuid() != 0:
                    raise EngineUnavailable(
                        "no Docker engine answers and starting a private dockerd needs root"
                    )
                if shutil.which("dockerd") is None:
                    raise EngineUnavailable(
                        "no Docker engine answers and dockerd is not installed (make setup)"
                    )
                self.started = start_private_dockerd()
                url = self.started.base_url
            client = docker.DockerClient(base_url=url)
            try:
                ensure_image(client)
            finally:
                client.close()
            self.url = url
        except (EngineUnavailable, RootfsUnavailable) as error:
            self.reason = str(error)
        except Exception as error:  # an engine that answers but misbehaves
            self.reason = f"{type(error).__name__}: {error}"

    def wait(self) -> str:
        """The engine's base URL; skips (or fails, where docker is required) with the reason."""
        self.start()
        self._thread.join(PREPARATION_TIMEOUT)
        if self.url is None:
            reason = self.reason or f"preparing Docker took over {PREPARATION_TIMEOUT:.0f}s"
            if docker_required():
                pytest.fail(
                    f"the docker sandbox is required here (CI or LATS_REQUIRE_DOCKER=1) but: {reason}"
                )
            pytest.skip(f"docker sandbox unavailable: {reason}")
        return self.url

    def stop(self) -> None:
        """Stop the engine this process started (a build still going on is abandoned)."""
        if self._thread is not None:
            self._thread.join(5.0)
        if self.started is not None:
            self.started.stop()
            self.started = None


PREPARATION = DockerPreparation()
