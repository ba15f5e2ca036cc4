"""`lats webshop ...`: the WebShop site for people, and catalog builds.

  lats webshop site [--host H] [--port P]   serve the shop in a browser
  lats webshop build                        build (or find) the catalog and say where

The catalog comes from the LATS_WEBSHOP_* variables (see catalog.py).
"""

from __future__ import annotations

import threading
import time

import click

from env_servers.webshop.catalog import CatalogSource, default_cache_dir, open_catalog


@click.group()
def webshop() -> None:
    """The WebShop environment's site and catalog."""


@webshop.command()
@click.option("--host", default="127.0.0.1", envvar="LATS_HOST", show_default=True,
              show_envvar=True, help="Interface to listen on.")
@click.option("--port", default=5000, type=click.IntRange(0, 65535), show_default=True,
              help="Port to listen on (0 = any free port).")
def site(host: str, port: int) -> None:
    """Serve the shop as a website until interrupted (Ctrl-C)."""
    from env_servers.webshop.shop import Shop
    from env_servers.webshop.site import serve_site

    shop = Shop(_open())
    server = serve_site(shop, host, port)
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"listening on http://{shown}:{server.port}/ (episode 0: /fixed_0)", err=False)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()


@webshop.command()
def build() -> None:
    """Build the catalog into the cache (or find it there) and describe it."""
    started = time.monotonic()
    store = _open()
    meta = store.meta
    click.echo(f"catalog {store.catalog_id} ({meta['source']}, seed {meta['seed']}): "
               f"{store.product_count} products, {store.goal_count} goals")
    click.echo(f"file: {store.path}")
    click.echo(f"ready in {time.monotonic() - started:.1f}s")


def _open():
    try:
        return open_catalog(CatalogSource.from_environment(), default_cache_dir())
    except (OSError, ValueError) as error:
        raise click.ClickException(str(error)) from None


if __name__ == "__main__":
    webshop(prog_name="python -m env_servers.webshop.cli")
