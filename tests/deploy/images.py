"""The images the container tests run, built once per test session in the background.

A Docker engine comes from the sandbox tests' preparation (an engine that
answers, or a private dockerd; its bridge-less default still gives compose
networks their own bridges and DNS). The LATS image is then built offline
(debootstrap base + the host's wheels, both cached) as `lats:test-RUN`, and
Debian's PostgreSQL as `lats-postgres:test-RUN`, while the tests before these
run. RUN is this session's own, so test runs sharing an engine (several
checkouts at once) never replace each other's images; the session removes its
tags at the end and leaves the layers as the next build's cache.
On CI (CI=true) or with LATS_REQUIRE_DOCKER=1 a failure fails the tests
instead of skipping them.
"""

from __future__ import annotations

import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.deploy.compose import ROOT
from tests.sandbox.engines import PREPARATION, docker_required

RUN = uuid.uuid4().hex[:10]
IMAGE = f"lats:test-{RUN}"
POSTGRES_IMAGE = f"lats-postgres:test-{RUN}"
TIMEOUT = 1500.0


class ImagePreparation:
    def __init__(self):
        self.url: str | None = None
        self.reason = ""
        self.seconds: dict[str, float] = {}
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        with self._lock:
            if self._thread is None:
                PREPARATION.start()
                self._thread = threading.Thread(target=self._prepare, name="deploy-images",
                                                daemon=True)
                self._thread.start()

    def _prepare(self) -> None:
        import docker

        from lats.deploy_artifacts.images import build_postgres_image, build_service_image

        try:
            PREPARATION._thread.join(TIMEOUT)
            if PREPARATION.url is None:
                raise RuntimeError(PREPARATION.reason or "no Docker engine")
            client = docker.DockerClient(base_url=PREPARATION.url, timeout=600)
            started = time.monotonic()
            with ThreadPoolExecutor(2) as pool:
                service = pool.submit(build_service_image, client, ROOT, offline=True, tag=IMAGE)
                postgres = pool.submit(build_postgres_image, client, ROOT, tag=POSTGRES_IMAGE)
                self.seconds["lats"] = service.result().seconds
                self.seconds["postgres"] = postgres.result().seconds
            self.seconds["both"] = time.monotonic() - started
            client.close()
            self.url = PREPARATION.url
        except Exception as error:
            self.reason = f"{type(error).__name__}: {error}"

    def wait(self) -> str:
        """The engine's URL once both images exist; skips (or fails on CI) otherwise."""
        self.start()
        self._thread.join(TIMEOUT)
        if self.url is None:
            reason = self.reason or f"building the images took over {TIMEOUT:.0f}s"
            if docker_required():
                pytest.fail(f"the deploy images are required here (CI) but: {reason}")
            pytest.skip(f"deploy images unavailable: {reason}")
        return self.url


    def untag(self) -> None:
        """Removes this session's tags (not their layers: the next build's cache)."""
        if self.url is not None:
            untag(self.url, (IMAGE, POSTGRES_IMAGE))


def untag(engine: str, tags) -> None:
    """Removes `tags` from the engine (not their layers: the next build's cache); an
    engine that is gone (stopped by whoever started it) has nothing left to remove."""
    import docker

    try:
        client = docker.DockerClient(base_url=engine)
    except docker.errors.DockerException:
        return
    try:
        for tag in tags:
            try:
                client.images.remove(tag, noprune=True)
            except (docker.errors.DockerException, OSError):   # in use, gone, engine gone
                pass
    finally:
        client.close()


IMAGES = ImagePreparation()
