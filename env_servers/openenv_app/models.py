"""Moved to `lats_openenv.models` (importable without the server); kept for old imports."""

from lats_openenv.models import LatsAction, LatsObservation, LatsState

__all__ = ["LatsAction", "LatsObservation", "LatsState"]
