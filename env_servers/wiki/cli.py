"""`lats wiki ...`: build and query the offline Wikipedia index.

  lats wiki index FILE...      index HotPotQA distractor-setting files
  lats wiki search ENTITY      what Search[ENTITY] shows on an index
"""

from __future__ import annotations

from pathlib import Path

import click

from env_servers.wiki.corpora import offline_index_path
from env_servers.wiki.hotpot_files import HotpotFileError
from env_servers.wiki.index import build_index
from env_servers.wiki.offline import OfflineCorpus
from env_servers.wiki.pages import not_found_observation
from env_servers.core.domain_settings import settings_from_environment
from env_servers.wiki.settings import WikiSettings


def _settings() -> WikiSettings:
    """The settings `lats serve env hotpotqa` would get from the LATS_WIKI_* variables."""
    try:
        return settings_from_environment(WikiSettings)
    except ValueError as error:
        raise click.ClickException(str(error)) from error


@click.group()
def wiki() -> None:
    """The offline Wikipedia of the hotpotqa environments."""


@wiki.command("index")
@click.argument("files", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
              help="Index file to write (default: the file the server looks for when "
                   "LATS_WIKI_DATA names these FILES).")
def index(files: tuple[Path, ...], output: Path | None) -> None:
    """Index HotPotQA distractor-setting FILES (the vendored JSONL, or the original
    hotpot_dev_distractor_v1.json) into a SQLite full-text index."""
    settings = _settings()
    target = output or offline_index_path(
        WikiSettings(data_files=files, cache_dir=settings.cache_dir))
    try:
        stats = build_index(files, target)
    except HotpotFileError as error:
        raise click.ClickException(str(error)) from error
    click.echo(f"indexed {stats.questions} questions, {stats.pages} pages "
               f"({stats.paragraphs} paragraphs) in {stats.seconds:.1f}s: {stats.path}")
    click.echo(f"serve it with: LATS_WIKI_INDEX={stats.path} lats serve env hotpotqa")


@wiki.command("search")
@click.argument("entity")
@click.option("--index", "index_path", type=click.Path(exists=True, dir_okay=False,
                                                       path_type=Path),
              help="Index file (default: the one the server uses, built if missing).")
def search(entity: str, index_path: Path | None) -> None:
    """Print what Search[ENTITY] shows on the offline index."""
    from env_servers.wiki.corpora import open_offline

    settings = _settings()
    corpus = OfflineCorpus(index_path) if index_path else open_offline(settings)
    try:
        result = corpus.search(entity)
    finally:
        corpus.close()
    if result.page is None:
        click.echo(not_found_observation(entity, result.similar))
    else:
        click.echo(f"[{result.page.title}] {result.page.summary()}")
