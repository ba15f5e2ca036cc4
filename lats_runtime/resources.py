"""Where LATS finds its shipped data and keeps its caches.

`data_file(name)` is a vendored data file (package `lats_data`, provenance in
its README.md), read through `importlib.resources`, so a source checkout, an
editable install and an installed wheel find it alike.

`cache_dir(component)` is the writable folder a component keeps built
artefacts in (search indexes, catalogs, model files): `$LATS_CACHE_DIR/<component>`
if LATS_CACHE_DIR is set (containers point it at a volume), else
`$XDG_CACHE_HOME/lats/<component>`, else `~/.cache/lats/<component>`. It is
not created here.
"""

from __future__ import annotations

import atexit
import contextlib
import os
from importlib import resources
from pathlib import Path

DATA_PACKAGE = "lats_data"
CACHE_ENV = "LATS_CACHE_DIR"

_extracted = contextlib.ExitStack()
atexit.register(_extracted.close)


def data_file(name: str) -> Path:
    """The file path of the vendored data file `name` (e.g. "24.csv").

    FileNotFoundError names the file and the package when it is not shipped.
    """
    resource = resources.files(DATA_PACKAGE).joinpath(name)
    if not resource.is_file():
        raise FileNotFoundError(
            f"vendored data file {name!r} is not in package {DATA_PACKAGE} "
            f"({resources.files(DATA_PACKAGE)}); reinstall lats-platform")
    if isinstance(resource, Path):
        return resource
    # A zipped install: extract once, kept until the process exits.
    return _extracted.enter_context(resources.as_file(resource))


def cache_dir(component: str) -> Path:
    """The cache folder of `component` ("wiki", "webshop", "models", ...)."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured).expanduser() / component
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).expanduser() / "lats" / component
