"""Shared fixtures of the WebShop tests.

The tests run on the shipped (generated, seed 0) catalog whatever the
developer's LATS_WEBSHOP_* settings say; server processes the tests start
inherit that. The catalog is built once into the WebShop cache (content-
addressed by catalog id, so a build is reused by later runs and by the
server processes, which read the same cache).
"""

from __future__ import annotations

import os

import pytest

from env_servers.webshop.catalog import open_catalog
from env_servers.webshop.shop import Shop
from env_servers.webshop.store import CatalogStore


@pytest.fixture(scope="session", autouse=True)
def shipped_catalog_settings():
    names = ("LATS_WEBSHOP_DATA", "LATS_WEBSHOP_GOALS", "LATS_WEBSHOP_SEED")
    saved = {name: os.environ.pop(name) for name in names if name in os.environ}
    yield
    os.environ.update(saved)


@pytest.fixture(scope="session")
def store(shipped_catalog_settings) -> CatalogStore:
    return open_catalog()


@pytest.fixture(scope="session")
def shop(store) -> Shop:
    return Shop(store)
