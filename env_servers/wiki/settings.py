"""Server settings of the Wikipedia / HotPotQA environments, from environment variables.

`lats serve env hotpotqa` builds the domain without arguments, so every
setting has an environment variable (read by `WikiSettings.from_env`):

  LATS_HOTPOTQA_REWARD_MODE  honest (default) | oracle. oracle: Finish earns
                             reward 1 on an exact match with the gold answer
                             (the papers' setting); honest: Step rewards are
                             always 0 and only Score sees the gold answer.
  LATS_WIKI_CORPUS           offline (default) | live (the real Wikipedia).
  LATS_WIKI_INDEX            offline index file; default: a file in the cache
                             dir named after the data files' fingerprint.
  LATS_WIKI_DATA             distractor-setting file(s) to index when the index
                             is missing (os.pathsep-separated); default: the
                             vendored data/hotpotqa_distractor_dev0-99.jsonl.
  LATS_HOTPOTQA_QUESTIONS    the question list (default: the vendored
                             data/hotpot_dev_v1_simplified.json).
  LATS_WIKI_CACHE_DIR        where indexes and the live cache go (default
                             $XDG_CACHE_HOME/lats/wiki or ~/.cache/lats/wiki).
  LATS_WIKI_BASE_URL         live mode: the wiki's address (default English Wikipedia).
  LATS_WIKI_USER_AGENT       live mode: the User-Agent sent; add a contact.
  LATS_WIKI_TIMEOUT          live mode: seconds per HTTP request (default 10).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

REWARD_MODES = ("honest", "oracle")
CORPORA = ("offline", "live")
DATA_DIR = Path(__file__).resolve().parents[2] / "data"
DEFAULT_DISTRACTOR_FILE = DATA_DIR / "hotpotqa_distractor_dev0-99.jsonl"
DEFAULT_QUESTIONS_FILE = DATA_DIR / "hotpot_dev_v1_simplified.json"
DEFAULT_BASE_URL = "https://en.wikipedia.org"
DEFAULT_USER_AGENT = (
    "lats-platform/0.1 (Language Agent Tree Search research environment; "
    "set LATS_WIKI_USER_AGENT to include your contact)"
)


def default_cache_dir() -> Path:
    root = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(root) / "lats" / "wiki"


@dataclass(frozen=True)
class WikiSettings:
    reward_mode: str = "honest"
    corpus: str = "offline"
    index_path: Path | None = None
    data_files: tuple[Path, ...] = (DEFAULT_DISTRACTOR_FILE,)
    questions_file: Path = DEFAULT_QUESTIONS_FILE
    cache_dir: Path = field(default_factory=default_cache_dir)
    base_url: str = DEFAULT_BASE_URL
    user_agent: str = DEFAULT_USER_AGENT
    timeout_seconds: float = 10.0

    def __post_init__(self) -> None:
        if self.reward_mode not in REWARD_MODES:
            raise ValueError(f"reward mode {self.reward_mode!r} is not one of "
                             f"{', '.join(REWARD_MODES)} (LATS_HOTPOTQA_REWARD_MODE)")
        if self.corpus not in CORPORA:
            raise ValueError(f"corpus {self.corpus!r} is not one of {', '.join(CORPORA)} "
                             "(LATS_WIKI_CORPUS)")
        if self.timeout_seconds <= 0:
            raise ValueError("LATS_WIKI_TIMEOUT must be a positive number of seconds")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> WikiSettings:
        env = os.environ if environ is None else environ
        values: dict = {}
        if env.get("LATS_HOTPOTQA_REWARD_MODE"):
            values["reward_mode"] = env["LATS_HOTPOTQA_REWARD_MODE"].strip().lower()
        if env.get("LATS_WIKI_CORPUS"):
            values["corpus"] = env["LATS_WIKI_CORPUS"].strip().lower()
        if env.get("LATS_WIKI_INDEX"):
            values["index_path"] = Path(env["LATS_WIKI_INDEX"]).expanduser()
        if env.get("LATS_WIKI_DATA"):
            values["data_files"] = tuple(
                Path(p).expanduser() for p in env["LATS_WIKI_DATA"].split(os.pathsep) if p)
        if env.get("LATS_HOTPOTQA_QUESTIONS"):
            values["questions_file"] = Path(env["LATS_HOTPOTQA_QUESTIONS"]).expanduser()
        if env.get("LATS_WIKI_CACHE_DIR"):
            values["cache_dir"] = Path(env["LATS_WIKI_CACHE_DIR"]).expanduser()
        if env.get("LATS_WIKI_BASE_URL"):
            values["base_url"] = env["LATS_WIKI_BASE_URL"].rstrip("/")
        if env.get("LATS_WIKI_USER_AGENT"):
            values["user_agent"] = env["LATS_WIKI_USER_AGENT"]
        if env.get("LATS_WIKI_TIMEOUT"):
            try:
                values["timeout_seconds"] = float(env["LATS_WIKI_TIMEOUT"])
            except ValueError as error:
                raise ValueError("LATS_WIKI_TIMEOUT must be a number of seconds") from error
        return cls(**values)
