"""Settings of the WebShop environment (`lats serve env webshop --help`).

  --data       LATS_WEBSHOP_DATA   a folder with WebShop's original files, loaded as
                                   they are (original_loader); unset: the generated catalog
  --goals      LATS_WEBSHOP_GOALS  the human instructions the generator reads
                                   (default: the vendored webshop_human_goals.json)
  --seed       LATS_WEBSHOP_SEED   the generator's seed (default 0)
  --cache-dir  LATS_WEBSHOP_CACHE  where built catalogs are kept (default
                                   lats_runtime.resources.cache_dir("webshop"))
  --reward-mode LATS_WEBSHOP_REWARD_MODE  oracle (default: the paper's reward at
                                   [Buy Now]) | honest (reward 0; Score alone judges)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from env_servers.core.domain_settings import setting
from lats_runtime.resources import cache_dir, data_file


def default_goals_path() -> Path:
    return data_file("webshop_human_goals.json")


def default_cache_dir() -> Path:
    return cache_dir("webshop")


@dataclass(frozen=True)
class WebShopSettings:
    data: Path | None = setting(
        None, env="LATS_WEBSHOP_DATA", file_okay=False,
        help="Folder of WebShop's original product and instruction files, served as "
             "they are (default: the catalog generated from the human instructions).")
    goals: Path = setting(
        default_factory=default_goals_path, env="LATS_WEBSHOP_GOALS", dir_okay=False,
        help="The human instructions the catalog generator reads.")
    seed: int = setting(0, env="LATS_WEBSHOP_SEED",
                        help="The catalog generator's seed (also orders the goals).")
    reward_mode: str = setting(
        "oracle", env="LATS_WEBSHOP_REWARD_MODE", choices=("oracle", "honest"),
        help="oracle: [Buy Now] earns the paper's reward and shows it (the papers' "
             "setting); honest: it earns 0 and shows only what was bought, and the "
             "purchase is judged by Score alone.")
    cache_dir: Path = setting(
        default_factory=default_cache_dir, env="LATS_WEBSHOP_CACHE", file_okay=False,
        help="Where built catalogs are kept (a build is reused while its inputs and "
             "code are unchanged).")
