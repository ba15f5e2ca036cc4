"""`lats webshop ...`: the WebShop site for people, and catalog builds.

  lats webshop site [--host H] [--port P]   serve the shop in a browser
  lats webshop build                        build (or find) the catalog and say where

Both take the catalog settings of `lats serve env webshop` (settings.py): the
same flags, with the LATS_WEBSHOP_* variables as fallbacks.
"""

from __future__ import annotations

import threading
import time

import click

from env_servers.core.domain_settings import build_settings, settings_options
from env_servers.webshop.catalog import open_catalog
from env_servers.webshop.settings import WebShopSettings


def catalog_options(command):
    """Adds the WebShop settings' options to `command` (they arrive as keywords)."""
    command.params.extend(settings_options(WebShopSettings))
    return command


@click.group()
def webshop() -> None:
    """The WebShop environment's site and catalog."""


@catalog_options
@webshop.command()
@click.option("--host", default="127.0.0.1", envvar="LATS_HOST", show_default=True,
              show_envvar=True, help="Interface to listen on.")
@click.option("--port", default=5000, type=click.IntRange(0, 65535), show_default=True,
              help="Port to listen on (0 = any free port).")
def site(host: str, port: int, **catalog) -> None:
    """Serve the shop as a website until interrupted (Ctrl-C)."""
    from env_servers.webshop.shop import Shop
    from env_servers.webshop.site import serve_site

    shop = Shop(_open(catalog))
    server = serve_site(shop, host, port)
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"listening on http://{shown}:{server.port}/ (episode 0: /fixed_0)", err=False)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()


@catalog_options
@webshop.command()
def build(**catalog) -> None:
    """Build the catalog into the cache (or find it there) and describe it."""
    started = time.monotonic()
    store = _open(catalog)
    meta = store.meta
    click.echo(f"catalog {store.catalog_id} ({meta['source']}, seed {meta['seed']}): "
               f"{store.product_count} products, {store.goal_count} goals")
    click.echo(f"file: {store.path}")
    click.echo(f"ready in {time.monotonic() - started:.1f}s")


def _open(values: dict):
    try:
        return open_catalog(build_settings(WebShopSettings, values))
    except (OSError, ValueError) as error:
        raise click.ClickException(str(error)) from None


if __name__ == "__main__":
    webshop(prog_name="python -m env_servers.webshop.cli")
