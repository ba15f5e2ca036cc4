"""The action, observation and state, as lats_openenv.models defines them."""

from lats_openenv.models import LatsAction, LatsObservation, LatsState

__all__ = ["LatsAction", "LatsObservation", "LatsState"]
