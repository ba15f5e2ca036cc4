"""Building the offline corpus: HotPotQA paragraphs in SQLite with FTS5.

`build_index(files, output)` reads distractor-setting files (any layout
`hotpot_files` accepts) and writes one SQLite database:
  pages(id, title UNIQUE, title_key, base_key, sentences JSON)   one row per title
  pages_fts(title, body)      contentless FTS5 (rowid = pages.id), for suggestions
  questions(position, qid, question, answer, type, level, supporting_facts JSON)
  meta(key, value)            schema version, sources, counts
A title met twice keeps its first paragraph. The file is written beside
`output` and renamed into place, so readers never see a half-built index and
concurrent builders do not clash. `ensure_index` builds only when missing.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from env_servers.wiki.hotpot_files import read_distractor
from env_servers.wiki.titles import base_key, title_key

SCHEMA_VERSION = "1"
_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE pages(
  id INTEGER PRIMARY KEY,
  title TEXT NOT NULL UNIQUE,
  title_key TEXT NOT NULL,
  base_key TEXT NOT NULL,
  sentences TEXT NOT NULL
);
CREATE VIRTUAL TABLE pages_fts USING fts5(
  title, body, content='', tokenize='unicode61 remove_diacritics 2'
);
CREATE TABLE questions(
  position INTEGER PRIMARY KEY,
  qid TEXT NOT NULL,
  question TEXT NOT NULL,
  answer TEXT NOT NULL,
  type TEXT NOT NULL,
  level TEXT NOT NULL,
  supporting_facts TEXT NOT NULL
);
"""
_INDEXES = """
CREATE INDEX pages_title_key ON pages(title_key);
CREATE INDEX pages_base_key ON pages(base_key);
CREATE INDEX questions_qid ON questions(qid);
"""


@dataclass(frozen=True)
class IndexStats:
    path: Path
    questions: int
    pages: int
    paragraphs: int
    seconds: float


def fingerprint(files: Sequence[Path]) -> str:
    """A short digest of the schema version and the files' contents."""
    digest = hashlib.sha256(SCHEMA_VERSION.encode())
    for path in files:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def build_index(files: Sequence[Path], output: Path) -> IndexStats:
    """Indexes the paragraphs and questions of `files` into `output` (replaced)."""
    started = time.perf_counter()
    files = [Path(f) for f in files]
    if not files:
        raise ValueError("give at least one HotPotQA distractor-setting file to index")
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=output.name + ".", suffix=".tmp",
                                         dir=output.parent)
    os.close(handle)
    try:
        stats = _write(files, Path(temporary))
        os.replace(temporary, output)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return IndexStats(output, *stats, time.perf_counter() - started)


def _write(files: Sequence[Path], path: Path) -> tuple[int, int, int]:
    connection = sqlite3.connect(path)
    try:
        connection.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
                                 "PRAGMA cache_size=-262144;" + _SCHEMA)
        seen: set[str] = set()
        questions = paragraphs = 0
        with connection:
            for file in files:
                question_rows, page_rows, text_rows = [], [], []
                for question, context in read_distractor(file):
                    questions += 1
                    question_rows.append((
                        question.index, question.qid, question.question, question.answer,
                        question.type, question.level,
                        json.dumps(question.supporting_facts, ensure_ascii=False)))
                    for paragraph in context:
                        paragraphs += 1
                        if paragraph.title in seen or not paragraph.sentences:
                            continue
                        seen.add(paragraph.title)
                        page_rows.append((len(seen), paragraph.title, title_key(paragraph.title),
                                          base_key(paragraph.title),
                                          json.dumps(paragraph.sentences, ensure_ascii=False)))
                        text_rows.append((len(seen), paragraph.title,
                                          " ".join(paragraph.sentences)))
                connection.executemany(
                    "INSERT OR REPLACE INTO questions VALUES (?, ?, ?, ?, ?, ?, ?)", question_rows)
                connection.executemany("INSERT INTO pages VALUES (?, ?, ?, ?, ?)", page_rows)
                connection.executemany(
                    "INSERT INTO pages_fts(rowid, title, body) VALUES (?, ?, ?)", text_rows)
            connection.execute("INSERT INTO pages_fts(pages_fts) VALUES ('optimize')")
            connection.executescript(_INDEXES)
            meta = {"schema_version": SCHEMA_VERSION, "questions": str(questions),
                    "pages": str(len(seen)), "paragraphs": str(paragraphs),
                    "sources": json.dumps([f.name for f in files])}
            connection.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
        return questions, len(seen), paragraphs
    finally:
        connection.close()


def index_is_current(path: Path) -> bool:
    """True if `path` is an index of this schema version."""
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error:
        return False
    try:
        row = connection.execute(
            "SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        return row is not None and row[0] == SCHEMA_VERSION
    except sqlite3.Error:
        return False
    finally:
        connection.close()


def ensure_index(path: Path, files: Sequence[Path]) -> Path:
    """`path`, built from `files` first unless a current index is there."""
    path = Path(path)
    if not (path.is_file() and index_is_current(path)):
        build_index(files, path)
    return path
