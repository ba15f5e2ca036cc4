"""Fixtures of the deploy tests: images built in the background, a Docker engine."""

from __future__ import annotations

import pytest

from tests.deploy.images import IMAGES
from tests.sandbox.engines import PREPARATION


def _needs_images(item) -> bool:
    return "deploy_engine" in getattr(item, "fixturenames", ())


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    """Start the engine and the image builds now, so they overlap earlier tests."""
    needing = [item for item in items if _needs_images(item)]
    if needing and not config.option.collectonly:
        IMAGES.start()
        needing[0].add_marker(pytest.mark.timeout(1800))


def pytest_sessionfinish(session, exitstatus):
    IMAGES.untag()
    PREPARATION.stop()


@pytest.fixture(scope="session")
def deploy_engine() -> str:
    """DOCKER_HOST of an engine holding this session's IMAGE and POSTGRES_IMAGE."""
    return IMAGES.wait()
