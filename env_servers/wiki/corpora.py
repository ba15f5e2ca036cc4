"""Opening the corpus the settings ask for (building the offline index if needed)."""

from __future__ import annotations

from pathlib import Path

from env_servers.wiki.index import ensure_index, fingerprint
from env_servers.wiki.live import LiveCorpus
from env_servers.wiki.offline import OfflineCorpus
from env_servers.wiki.settings import WikiSettings


def offline_index_path(settings: WikiSettings) -> Path:
    """LATS_WIKI_INDEX, else the cache-dir file named after the data's fingerprint."""
    if settings.index_path is not None:
        return settings.index_path
    missing = [str(f) for f in settings.data_files if not Path(f).is_file()]
    if missing:
        raise FileNotFoundError(
            f"HotPotQA distractor file(s) not found: {', '.join(missing)}; set "
            "LATS_WIKI_DATA to distractor-setting files or LATS_WIKI_INDEX to a built index")
    return settings.cache_dir / f"hotpotqa-{fingerprint(settings.data_files)}.sqlite3"


def open_offline(settings: WikiSettings) -> OfflineCorpus:
    return OfflineCorpus(ensure_index(offline_index_path(settings), settings.data_files))


def open_live(settings: WikiSettings, **options) -> LiveCorpus:
    return LiveCorpus(base_url=settings.base_url, user_agent=settings.user_agent,
                      timeout_seconds=settings.timeout_seconds,
                      cache_path=settings.cache_dir / "live-cache.sqlite3", **options)


def open_corpus(settings: WikiSettings) -> OfflineCorpus | LiveCorpus:
    return open_offline(settings) if settings.corpus == "offline" else open_live(settings)
