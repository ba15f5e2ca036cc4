"""Moved to `lats_openenv.client` (importable without the server); kept for old imports."""

from lats_openenv.client import LatsEnv

__all__ = ["LatsEnv"]
