"""Shared fixtures of the environment tests."""

from __future__ import annotations

import pytest

from env_servers.game24 import Game24Domain


@pytest.fixture(scope="session")
def game24() -> Game24Domain:
    return Game24Domain()
