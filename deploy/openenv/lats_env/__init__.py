"""The LATS platform's environments as an OpenEnv environment: the client side.

    from lats_env import LatsAction, LatsEnv

The client and its models are lats_openenv's (they import no server code);
server/ serves the environments.
"""

from lats_env.client import LatsEnv
from lats_env.models import LatsAction, LatsObservation, LatsState

__all__ = ["LatsAction", "LatsEnv", "LatsObservation", "LatsState"]
