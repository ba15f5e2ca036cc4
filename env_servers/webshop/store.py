"""The catalog on disk: one SQLite file with products, goals and a search index.

Tables:
  meta(key, value)            catalog_id, source, counts
  products(asin, data)        product dicts as JSON
  goals(position, data)       goal dicts as JSON; position N is episode fixed_N
  search                      FTS5 index (porter stemming) of title and text

Search ranks with SQLite FTS5's built-in bm25() (title weighted 4:1 over
features, description and option values), any query word may match, ties go
to the smaller product id, and at most SEARCH_LIMIT products come back (50,
as WebShop's SEARCH_RETURN_N).

`build_store` writes a new file atomically (temp file + rename), so replicas
and concurrent builders never see half a catalog. `CatalogStore` is
read-only and safe to share between threads (one connection per thread).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import tempfile
import threading
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from env_servers.webshop.goals import Goal
from env_servers.webshop.reward import Product

SEARCH_LIMIT = 50
MAX_QUERY_TERMS = 32
TITLE_WEIGHT = 4.0
_TERM = re.compile(r"[a-z0-9]+")
# Dropped from queries, as Lucene's English analyzer (WebShop's engine) does.
QUERY_STOPWORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their "
    "then there these they this to was will with i im me my want need looking would like "
    "some".split())


def search_text(product: Product) -> str:
    """Everything but the title that search looks at."""
    options = " ".join(v for values in product.get("options", {}).values() for v in values)
    return " ".join([" ".join(product.get("BulletPoints", [])),
                     product.get("Description", ""), options])


def build_store(path: Path, products: Iterable[Product], goals: list[Goal],
                meta: dict[str, Any]) -> Path:
    """Writes the catalog to `path` (atomically) and returns it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    os.close(handle)
    os.chmod(temporary, 0o644)
    try:
        connection = sqlite3.connect(temporary)
        try:
            _write(connection, products, goals, meta)
        finally:
            connection.close()
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def _write(connection: sqlite3.Connection, products: Iterable[Product], goals: list[Goal],
           meta: dict[str, Any]) -> None:
    connection.executescript("""
        PRAGMA journal_mode = OFF;
        PRAGMA synchronous = OFF;
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE products (asin TEXT PRIMARY KEY, data TEXT NOT NULL);
        CREATE TABLE goals (position INTEGER PRIMARY KEY, data TEXT NOT NULL);
        CREATE VIRTUAL TABLE search USING fts5(
            asin UNINDEXED, title, body, tokenize = 'porter unicode61');
    """)
    with connection:
        count = 0
        for product in products:
            connection.execute("INSERT INTO products VALUES (?, ?)",
                               (product["asin"], json.dumps(product, sort_keys=True)))
            connection.execute("INSERT INTO search VALUES (?, ?, ?)",
                               (product["asin"], product["Title"], search_text(product)))
            count += 1
        connection.executemany("INSERT INTO goals VALUES (?, ?)",
                               ((i, json.dumps(g, sort_keys=True)) for i, g in enumerate(goals)))
        meta = {**meta, "products": count, "goals": len(goals)}
        connection.executemany("INSERT INTO meta VALUES (?, ?)",
                               ((k, json.dumps(v)) for k, v in sorted(meta.items())))
    connection.execute("INSERT INTO search(search) VALUES ('optimize')")
    connection.commit()


def fts_query(query: str) -> str:
    """A safe FTS5 query: every word of `query`, quoted, joined by OR."""
    terms = [t for t in dict.fromkeys(_TERM.findall(query.lower())) if t not in QUERY_STOPWORDS]
    terms = terms[:MAX_QUERY_TERMS]
    return " OR ".join(f'"{term}"' for term in terms)


class CatalogStore:
    """Read access to one built catalog file. `product` and `search` are
    cached: the dicts they return are shared, so callers must not change them."""

    def __init__(self, path: Path):
        self.path = Path(path)
        if not self.path.is_file():
            raise FileNotFoundError(f"no WebShop catalog at {self.path}")
        self._local = threading.local()
        self.meta = {key: json.loads(value) for key, value in
                     self._connection().execute("SELECT key, value FROM meta")}
        self.catalog_id: str = self.meta["catalog_id"]
        self.goal_count: int = int(self.meta["goals"])
        self.product_count: int = int(self.meta["products"])
        self.product = lru_cache(maxsize=4096)(self._product)
        self.search = lru_cache(maxsize=1024)(self._search)

    def _connection(self) -> sqlite3.Connection:
        connection = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True,
                                         check_same_thread=False)
            self._local.connection = connection
        return connection

    def _product(self, asin: str) -> Product | None:
        row = self._connection().execute(
            "SELECT data FROM products WHERE asin = ?", (asin,)).fetchone()
        return json.loads(row[0]) if row else None

    def goal(self, position: int) -> Goal:
        row = self._connection().execute(
            "SELECT data FROM goals WHERE position = ?", (position,)).fetchone()
        if row is None:
            raise IndexError(f"no goal at position {position}")
        return json.loads(row[0])

    def _search(self, query: str) -> tuple[str, ...]:
        """Product ids best first (at most SEARCH_LIMIT) for a free-text query."""
        match = fts_query(query)
        if not match:
            return ()
        rows = self._connection().execute(
            f"SELECT asin FROM search WHERE search MATCH ? "
            f"ORDER BY bm25(search, 0.0, {TITLE_WEIGHT}, 1.0), asin LIMIT {SEARCH_LIMIT}",
            (match,)).fetchall()
        return tuple(row[0] for row in rows)
