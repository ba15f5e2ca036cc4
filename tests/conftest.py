"""Fixtures every test directory may use."""

from __future__ import annotations

import pytest

from lats.throwaway_postgres import PostgresUnavailable, throwaway_postgres


@pytest.fixture(scope="session")
def postgres_url():
    """A real, throwaway PostgreSQL server for the session (started once)."""
    try:
        with throwaway_postgres() as url:
            yield url
    except PostgresUnavailable as error:
        pytest.fail(f"PostgreSQL is needed for these tests: {error}")
