"""The typed OpenEnv client (`LatsEnv`), as lats_openenv.client defines it."""

from lats_openenv.client import LatsEnv

__all__ = ["LatsEnv"]
