"""Which catalog a server uses, and its cached build.

The source comes from the settings (`CatalogSource.of(WebShopSettings)`, see
settings.py): WebShop's original files when `data` is set, else the catalog
generated from the human instructions with the seed.

A build is keyed by its catalog id: a digest of the source kind, the seed,
the input files and the source code that shapes a catalog, so a changed
input or generator never reuses a stale build, and replicas with the same
code and inputs share one id.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import threading
from dataclasses import dataclass
from pathlib import Path

from env_servers.webshop.generator import GENERATOR_VERSION, generate_catalog
from env_servers.webshop.original_loader import load_original, original_files
from env_servers.webshop.settings import WebShopSettings
from env_servers.webshop.store import CatalogStore, build_store

# Modules whose code decides what a built catalog holds.
CATALOG_CODE = ("generator.py", "instructions.py", "vocabulary.py", "reward.py", "goals.py",
                "store.py", "original_loader.py")


@dataclass(frozen=True)
class CatalogSource:
    kind: str           # "generated" | "original"
    path: Path          # the goals file, or the directory of original files
    seed: int = 0

    @classmethod
    def of(cls, settings: WebShopSettings) -> CatalogSource:
        if settings.data is not None:
            return cls("original", settings.data, settings.seed)
        return cls("generated", settings.goals, settings.seed)

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
            f"WebShop instructions not found at {path}; give --goals (LATS_WEBSHOP_GOALS) "
            "the path of webshop_human_goals.json") from error


_build_lock = threading.Lock()


def open_catalog(settings: WebShopSettings | None = None) -> CatalogStore:
    """The built catalog the settings describe (default settings: the generated
    catalog, seed 0), built into the settings' cache dir first if not there yet."""
    settings = settings or WebShopSettings()
    source = CatalogSource.of(settings)
    catalog_id = source.catalog_id()
    path = settings.cache_dir / f"webshop-{source.kind}-{catalog_id}.sqlite"
    with _build_lock:
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            # Replicas sharing a cache volume build once: the others wait here.
            with open(path.with_suffix(".lock"), "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                if not path.is_file():
                    source.build(path, catalog_id)
    return CatalogStore(path)
