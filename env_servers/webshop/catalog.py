"""Which catalog a server uses, and its cached build.

Sources (`CatalogSource.from_environment`):
  LATS_WEBSHOP_DATA   a directory with WebShop's original files -> loaded as is
                      (original_loader); unset -> the generated catalog
  LATS_WEBSHOP_GOALS  the human instructions the generator reads
                      (default: data/webshop_human_goals.json of the repository)
  LATS_WEBSHOP_SEED   the generator's seed (default 0)
  LATS_WEBSHOP_CACHE  where built catalogs are kept (default
                      $XDG_CACHE_HOME/lats/webshop, i.e. ~/.cache/lats/webshop)

A build is keyed by its catalog id: a digest of the source kind, the seed,
the input files and the source code that shapes a catalog, so a changed
input or generator never reuses a stale build, and replicas with the same
code and inputs share one id.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from env_servers.webshop.generator import GENERATOR_VERSION, generate_catalog
from env_servers.webshop.original_loader import load_original, original_files
from env_servers.webshop.store import CatalogStore, build_store

DATA_ENV = "LATS_WEBSHOP_DATA"
GOALS_ENV = "LATS_WEBSHOP_GOALS"
SEED_ENV = "LATS_WEBSHOP_SEED"
CACHE_ENV = "LATS_WEBSHOP_CACHE"
# Modules whose code decides what a built catalog holds.
CATALOG_CODE = ("generator.py", "instructions.py", "vocabulary.py", "reward.py", "goals.py",
                "store.py", "original_loader.py")


def default_goals_path() -> Path:
    return Path(__file__).resolve().parents[2] / "data" / "webshop_human_goals.json"


def default_cache_dir() -> Path:
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "lats" / "webshop"


@dataclass(frozen=True)
class CatalogSource:
    kind: str           # "generated" | "original"
    path: Path          # the goals file, or the directory of original files
    seed: int = 0

    @classmethod
    def from_environment(cls) -> CatalogSource:
        seed_text = os.environ.get(SEED_ENV, "0")
        try:
            seed = int(seed_text)
        except ValueError:
            raise ValueError(f"{SEED_ENV} must be a whole number, not {seed_text!r}") from None
        data = os.environ.get(DATA_ENV)
        if data:
            return cls("original", Path(data), seed)
        return cls("generated", Path(os.environ.get(GOALS_ENV) or default_goals_path()), seed)

    def catalog_id(self) -> str:
        digest = hashlib.sha256(f"{self.kind}:{self.seed}:".encode())
        for name in CATALOG_CODE:
            digest.update(Path(__file__).with_name(name).read_bytes())
        if self.kind == "generated":
            digest.update(_read_goals_bytes(self.path))
        else:
            for name, path in sorted(original_files(self.path).items()):
                if path is not None:
                    stat = path.stat()
                    digest.update(f"{name}:{path.name}:{stat.st_size}:{stat.st_mtime_ns}".encode())
        return digest.hexdigest()[:16]

    def build(self, target: Path, catalog_id: str) -> Path:
        meta = {"catalog_id": catalog_id, "source": self.kind, "seed": self.seed,
                "generator_version": GENERATOR_VERSION}
        if self.kind == "generated":
            instructions = json.loads(_read_goals_bytes(self.path))
            generated = generate_catalog(instructions, self.seed)
            meta["dropped_distractors"] = generated.dropped_distractors
            return build_store(target, generated.products, generated.goals, meta)
        products, goals = load_original(self.path, self.seed)
        return build_store(target, products, goals, meta)


def _read_goals_bytes(path: Path) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise FileNotFoundError(
            f"WebShop instructions not found at {path}; set {GOALS_ENV} to the path of "
            "webshop_human_goals.json") from error


_build_lock = threading.Lock()


def open_catalog(source: CatalogSource | None = None,
                 cache_dir: Path | None = None) -> CatalogStore:
    """The built catalog of `source` (default: from the environment), built
    into `cache_dir` first if it is not there yet."""
    source = source or CatalogSource.from_environment()
    catalog_id = source.catalog_id()
    path = (cache_dir or default_cache_dir()) / f"webshop-{source.kind}-{catalog_id}.sqlite"
    with _build_lock:
        if not path.is_file():
            source.build(path, catalog_id)
    return CatalogStore(path)
