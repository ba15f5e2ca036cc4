"""Shared fixtures: one offline index of the vendored questions per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

from env_servers.wiki.domain import HotpotQADomain
from env_servers.wiki.index import build_index
from env_servers.wiki.offline import OfflineCorpus
from env_servers.wiki.settings import DEFAULT_DISTRACTOR_FILE, WikiSettings


@pytest.fixture(scope="session")
def index_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("wiki") / "hotpotqa.sqlite3"
    build_index([DEFAULT_DISTRACTOR_FILE], path)
    return path


@pytest.fixture
def corpus(index_path):
    opened = OfflineCorpus(index_path)
    yield opened
    opened.close()


@pytest.fixture
def make_settings(index_path, tmp_path):
    def make(**overrides) -> WikiSettings:
        values = {"index_path": index_path, "cache_dir": tmp_path / "cache", **overrides}
        return WikiSettings(**values)
    return make


@pytest.fixture
def make_domain(make_settings):
    """Builds HotpotQADomain / HotpotQACoTDomain on the session index; closes them."""
    made = []

    def make(cls=HotpotQADomain, corpus=None, **overrides):
        domain = cls(make_settings(**overrides), corpus=corpus)
        made.append(domain)
        return domain

    yield make
    for domain in made:
        try:
            domain.close()
        except Exception:  # already closed by a server that stopped
            pass
