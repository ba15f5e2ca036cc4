"""Settings of the Wikipedia / HotPotQA environments (`lats serve env hotpotqa --help`).

Each field is a flag of `lats serve env hotpotqa` (and `hotpotqa-cot`) with
an environment variable as its fallback:

  --reward-mode   LATS_HOTPOTQA_REWARD_MODE  honest (default) | oracle. oracle:
                  Finish earns reward 1 on an exact match with the gold answer
                  (the papers' setting); honest: Step rewards are always 0 and
                  only Score sees the gold answer.
  --corpus        LATS_WIKI_CORPUS           offline (default) | live (the real Wikipedia).
  --index         LATS_WIKI_INDEX            offline index file; default: a file in the
                                             cache dir named after the data's fingerprint.
  --wiki-data     LATS_WIKI_DATA             distractor-setting file(s) to index when the
                                             index is missing; default: the vendored
                                             hotpotqa_distractor_dev0-99.jsonl.
  --questions     LATS_HOTPOTQA_QUESTIONS    the question list (default: the vendored
                                             hotpot_dev_v1_simplified.json).
  --cache-dir     LATS_WIKI_CACHE_DIR        where indexes and the live cache go (default
                                             lats_runtime.resources.cache_dir("wiki")).
  --base-url      LATS_WIKI_BASE_URL         live mode: the wiki's address.
  --user-agent    LATS_WIKI_USER_AGENT       live mode: the User-Agent sent; add a contact.
  --timeout       LATS_WIKI_TIMEOUT          live mode: seconds per HTTP request.
  --observation-chars LATS_WIKI_OBSERVATION_CHARS  a Search shows whole sentences up to
                                             this many characters (default 600; 0 = all 5).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from env_servers.core.domain_settings import setting
from lats_runtime.resources import cache_dir, data_file

REWARD_MODES = ("honest", "oracle")
CORPORA = ("offline", "live")
DEFAULT_BASE_URL = "https://en.wikipedia.org"
DEFAULT_USER_AGENT = (
    "lats-platform/0.1 (Language Agent Tree Search research environment; "
    "set LATS_WIKI_USER_AGENT to include your contact)"
)


DEFAULT_DISTRACTOR_FILE = data_file("hotpotqa_distractor_dev0-99.jsonl")
DEFAULT_QUESTIONS_FILE = data_file("hotpot_dev_v1_simplified.json")


def default_distractor_files() -> tuple[Path, ...]:
    return (DEFAULT_DISTRACTOR_FILE,)


def default_questions_file() -> Path:
    return DEFAULT_QUESTIONS_FILE


def default_cache_dir() -> Path:
    return cache_dir("wiki")


@dataclass(frozen=True)
class WikiSettings:
    reward_mode: str = setting(
        "honest", env="LATS_HOTPOTQA_REWARD_MODE", choices=REWARD_MODES,
        help="honest: Step rewards are always 0 and only Score sees the gold answer; "
             "oracle: Finish earns 1 on an exact match (the papers' setting).")
    corpus: str = setting(
        "offline", env="LATS_WIKI_CORPUS", choices=CORPORA,
        help="offline: a SQLite full-text index of HotPotQA's paragraphs; live: the real "
             "Wikipedia over HTTPS.")
    index_path: Path | None = setting(
        None, env="LATS_WIKI_INDEX", flag="--index", dir_okay=False,
        help="Offline index file (default: one in the cache dir named after the data's "
             "fingerprint, built when missing).")
    data_files: tuple[Path, ...] = setting(
        default_factory=default_distractor_files, env="LATS_WIKI_DATA", flag="--wiki-data",
        dir_okay=False,
        help="HotPotQA distractor-setting file(s) to index when the index is missing "
             "(default: the vendored 100 dev questions). Repeatable.")
    questions_file: Path = setting(
        default_factory=default_questions_file, env="LATS_HOTPOTQA_QUESTIONS",
        flag="--questions", dir_okay=False,
        help="The question list (default: the vendored hotpot_dev_v1_simplified.json).")
    cache_dir: Path = setting(
        default_factory=default_cache_dir, env="LATS_WIKI_CACHE_DIR", file_okay=False,
        help="Where indexes and the live cache are kept.")
    base_url: str = setting(DEFAULT_BASE_URL, env="LATS_WIKI_BASE_URL",
                            help="Live corpus: the wiki's address.")
    user_agent: str = setting(DEFAULT_USER_AGENT, env="LATS_WIKI_USER_AGENT",
                              help="Live corpus: the User-Agent sent; include your contact.")
    observation_chars: int = setting(
        600, env="LATS_WIKI_OBSERVATION_CHARS", min=0,
        help="A Search shows a page's first 5 sentences, fewer where they pass this many "
             "characters (whole sentences, at least one; 0 = no limit): what a small model's "
             "context can use.")
    timeout_seconds: float = setting(10.0, env="LATS_WIKI_TIMEOUT", flag="--timeout", min=0,
                                     min_open=True,
                                     help="Live corpus: seconds per HTTP request.")

    def __post_init__(self) -> None:
        if self.reward_mode not in REWARD_MODES:
            raise ValueError(f"reward mode {self.reward_mode!r} is not one of "
                             f"{', '.join(REWARD_MODES)} (LATS_HOTPOTQA_REWARD_MODE)")
        if self.corpus not in CORPORA:
            raise ValueError(f"corpus {self.corpus!r} is not one of {', '.join(CORPORA)} "
                             "(LATS_WIKI_CORPUS)")
        if self.timeout_seconds <= 0:
            raise ValueError("LATS_WIKI_TIMEOUT must be a positive number of seconds")
        object.__setattr__(self, "base_url", self.base_url.rstrip("/"))
