"""The live corpus: the real Wikipedia over HTTPS, opt-in (LATS_WIKI_CORPUS=live).

Search[entity] asks `Special:Search` (as ReAct did): Wikipedia answers with
the article when a title matches, else with a result list. `page(title)`
re-reads an article by its title (a Step on a snapshot, and Lookup, use it).
Politeness and robustness: a descriptive User-Agent, a timeout per request, retries with
exponential backoff on network errors, 429 and 5xx (tenacity), a minimum
interval between requests, and a persistent SQLite cache of searches and
pages, so repeated and branched episodes do not hit the network again.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from urllib.parse import quote

import httpx
from tenacity import (
    RetryError,
    retry,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from env_servers.wiki.corpus import CorpusError, SearchResult
from env_servers.wiki.live_parsing import parse_article_or_results
from env_servers.wiki.pages import Page

_RETRIED_STATUS = frozenset({429, 500, 502, 503, 504})


class _RetryableStatus(Exception):
    def __init__(self, response: httpx.Response):
        super().__init__(f"HTTP {response.status_code} from {response.request.url}")
        self.response = response


def _retryable(error: BaseException) -> bool:
    return isinstance(error, (httpx.TransportError, _RetryableStatus))


class LiveCache:
    """Searches and pages fetched before, in one SQLite file (thread-safe)."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self._connection = sqlite3.connect(path, check_same_thread=False)
        self._lock = threading.Lock()
        with self._lock, self._connection:
            self._connection.executescript(
                "CREATE TABLE IF NOT EXISTS pages(title TEXT PRIMARY KEY, sentences TEXT);"
                "CREATE TABLE IF NOT EXISTS searches(entity TEXT PRIMARY KEY, title TEXT,"
                " similar TEXT);")

    def page(self, title: str) -> Page | None:
        with self._lock:
            row = self._connection.execute(
                "SELECT sentences FROM pages WHERE title = ?", (title,)).fetchone()
        return Page(title, tuple(json.loads(row[0]))) if row else None

    def search(self, entity: str) -> tuple[str | None, tuple[str, ...]] | None:
        with self._lock:
            row = self._connection.execute(
                "SELECT title, similar FROM searches WHERE entity = ?", (entity,)).fetchone()
        return (row[0], tuple(json.loads(row[1]))) if row else None

    def store_page(self, page: Page) -> None:
        with self._lock, self._connection:
            self._connection.execute("INSERT OR REPLACE INTO pages VALUES (?, ?)",
                                     (page.title, json.dumps(page.sentences)))

    def store_search(self, entity: str, title: str | None, similar: tuple[str, ...]) -> None:
        with self._lock, self._connection:
            self._connection.execute("INSERT OR REPLACE INTO searches VALUES (?, ?, ?)",
                                     (entity, title, json.dumps(list(similar))))

    def close(self) -> None:
        with self._lock:
            self._connection.close()


class LiveCorpus:
    name = "live"

    def __init__(self, *, base_url: str, user_agent: str, timeout_seconds: float,
                 cache_path: Path, attempts: int = 3, backoff_seconds: float = 0.5,
                 min_interval_seconds: float = 0.1,
                 transport: httpx.BaseTransport | None = None):
        self.base_url = base_url.rstrip("/")
        self.cache = LiveCache(Path(cache_path))
        self._client = httpx.Client(
            base_url=self.base_url, headers={"User-Agent": user_agent},
            timeout=timeout_seconds, follow_redirects=True, transport=transport)
        self._min_interval = min_interval_seconds
        self._last_request = 0.0
        self._throttle = threading.Lock()
        self._get = retry(
            retry=retry_if_exception(_retryable),
            stop=stop_after_attempt(attempts),
            wait=wait_exponential(multiplier=backoff_seconds, max=8 * max(backoff_seconds, 0.001)),
            reraise=False,
        )(self._get_once)

    def _get_once(self, path: str, params: dict | None = None) -> httpx.Response:
        with self._throttle:
            pause = self._last_request + self._min_interval - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            self._last_request = time.monotonic()
        response = self._client.get(path, params=params)
        if response.status_code in _RETRIED_STATUS:
            raise _RetryableStatus(response)
        return response

    def _fetch(self, path: str, params: dict | None = None) -> httpx.Response:
        """The response (2xx or 404); `CorpusError` once retries are spent or on
        another error status."""
        try:
            response = self._get(path, params)
        except RetryError as error:
            cause = error.last_attempt.exception()
            raise CorpusError(
                f"Wikipedia did not answer {path} after retries ({cause}); check the "
                "network or LATS_WIKI_BASE_URL, or use the offline corpus") from cause
        if response.status_code >= 400 and response.status_code != 404:
            raise CorpusError(
                f"Wikipedia answered HTTP {response.status_code} for {path}; check "
                "LATS_WIKI_BASE_URL and LATS_WIKI_USER_AGENT")
        return response

    def search(self, entity: str) -> SearchResult:
        entity = " ".join(entity.split())
        cached = self.cache.search(entity)
        if cached is not None:
            title, similar = cached
            page = self.page(title) if title else None
            if page is not None or not title:
                return SearchResult(page, similar)
        response = self._fetch("/w/index.php", {"search": entity, "title": "Special:Search",
                                                 "ns0": "1"})
        parsed = parse_article_or_results(response.text)
        if parsed.page is not None:
            self.cache.store_page(parsed.page)
        self.cache.store_search(entity, parsed.page.title if parsed.page else None,
                                parsed.similar)
        return SearchResult(parsed.page, parsed.similar)

    def page(self, title: str) -> Page | None:
        cached = self.cache.page(title)
        if cached is not None:
            return cached
        response = self._fetch("/wiki/" + quote(title.replace(" ", "_"), safe="()'!,:_-.~"))
        if response.status_code == 404:
            return None
        parsed = parse_article_or_results(response.text)
        if parsed.page is None:
            return None
        page = Page(title, parsed.page.sentences)
        self.cache.store_page(page)
        return page

    def close(self) -> None:
        self._client.close()
        self.cache.close()
