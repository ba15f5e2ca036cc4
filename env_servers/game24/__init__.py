"""The Game-of-24 environment (Tree-of-Thoughts formulation)."""

from env_servers.game24.domain import Game24Domain

__all__ = ["Game24Domain"]
