"""Logging set-up shared by every command and server."""

from __future__ import annotations

import logging

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def configure_logging(level: str = "INFO") -> None:
    """Root logging at `level` (a name such as INFO), one line per record on stderr."""
    logging.basicConfig(level=level.upper(), format=TEXT_FORMAT)
