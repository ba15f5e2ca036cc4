"""The interface both corpora (offline index, live Wikipedia) implement."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import grpc

from env_servers.core.errors import EnvError
from env_servers.wiki.pages import Page

SIMILAR_SHOWN = 5


@dataclass(frozen=True)
class SearchResult:
    """Either the page a Search landed on, or up to 5 similar titles."""

    page: Page | None
    similar: tuple[str, ...] = ()


class CorpusError(EnvError):
    """The corpus could not answer (e.g. Wikipedia unreachable after retries):
    the call fails with UNAVAILABLE and may be retried later."""

    code = grpc.StatusCode.UNAVAILABLE


class Corpus(Protocol):
    name: str  # "offline" | "live"

    def search(self, entity: str) -> SearchResult:
        """The page titled like `entity` (tolerantly), else similar titles."""

    def page(self, title: str) -> Page | None:
        """The page with exactly this title (as a Search returned it), or None."""

    def close(self) -> None:
        """Releases connections and files."""
