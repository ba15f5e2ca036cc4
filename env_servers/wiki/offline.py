"""The offline corpus: Search and page reads on an index built by `index.py`.

Search matches tolerantly, in this order, and takes the first stage with
exactly one page (an exact title wins ties in the first stage):
  1. the title's key equals the entity's key (case, accents, punctuation);
  2. the title without its "(...)" suffix equals the entity: "Ed Wood" finds
     "Ed Wood (film)" when that is the only Ed Wood;
  3. the entity without its suffix equals a title: "Ed Wood (director)"
     finds "Ed Wood" when no page has that suffix.
Otherwise the observation suggests up to 5 titles: pages tied in stage 2
first, then the best full-text matches (FTS5 bm25, title weighted 10x body).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

from env_servers.wiki.corpus import SIMILAR_SHOWN, SearchResult
from env_servers.wiki.hotpot_files import Question
from env_servers.wiki.pages import Page
from env_servers.wiki.titles import base_key, search_terms, strip_suffix, title_key


class OfflineCorpus:
    """Read-only access to one index file; safe to share between threads."""

    name = "offline"

    def __init__(self, path: Path):
        self.path = Path(path)
        self._connection = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True,
                                           check_same_thread=False)
        self._lock = threading.Lock()

    def _rows(self, sql: str, *args) -> list[tuple]:
        with self._lock:
            return self._connection.execute(sql, args).fetchall()

    def _page_of(self, row: tuple) -> Page:
        title, sentences = row
        return Page(title, tuple(json.loads(sentences)))

    def page(self, title: str) -> Page | None:
        rows = self._rows("SELECT title, sentences FROM pages WHERE title = ?", title)
        return self._page_of(rows[0]) if rows else None

    def search(self, entity: str) -> SearchResult:
        entity = entity.strip()
        key = title_key(entity)
        if not key:
            return SearchResult(None, ())
        exact = self._rows("SELECT title, sentences FROM pages WHERE title_key = ? "
                           "ORDER BY title = ? DESC, id LIMIT 1", key, entity)
        if exact:
            return SearchResult(self._page_of(exact[0]))
        suffixed = self._rows("SELECT title, sentences FROM pages WHERE base_key = ? "
                              "ORDER BY id LIMIT 50", key)
        if len(suffixed) == 1:
            return SearchResult(self._page_of(suffixed[0]))
        if not suffixed and strip_suffix(entity) != entity:
            plain = self._rows("SELECT title, sentences FROM pages WHERE title_key = ? "
                               "ORDER BY id LIMIT 2", base_key(entity))
            if len(plain) == 1:
                return SearchResult(self._page_of(plain[0]))
        similar = [title for title, _ in suffixed]
        similar += [t for t in self.similar(entity) if t not in similar]
        return SearchResult(None, tuple(similar[:SIMILAR_SHOWN]))

    def similar(self, text: str, limit: int = SIMILAR_SHOWN) -> list[str]:
        """Titles of the best full-text matches for the words of `text`."""
        terms = search_terms(text)
        if not terms:
            return []
        query = " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)
        rows = self._rows(
            "SELECT pages.title FROM pages_fts JOIN pages ON pages.id = pages_fts.rowid "
            "WHERE pages_fts MATCH ? ORDER BY bm25(pages_fts, 10.0, 1.0), pages.id LIMIT ?",
            query, limit)
        return [title for (title,) in rows]

    def questions(self) -> list[Question]:
        rows = self._rows("SELECT position, qid, question, answer, type, level, "
                          "supporting_facts FROM questions ORDER BY position")
        return [Question(index=r[0], qid=r[1], question=r[2], answer=r[3], type=r[4],
                         level=r[5], supporting_facts=tuple(map(tuple, json.loads(r[6]))))
                for r in rows]

    def stats(self) -> dict[str, str]:
        return dict(self._rows("SELECT key, value FROM meta"))

    def close(self) -> None:
        with self._lock:
            self._connection.close()
