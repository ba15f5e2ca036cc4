"""The OpenEnv client side of our environments: `LatsEnv` and its models.

    from lats_openenv import LatsAction, LatsEnv

    with LatsEnv(base_url="http://127.0.0.1:8000").sync() as env:
        env.reset(task_id="game24/900")
        env.step(LatsAction(text="6 * 5 = 30 (left: 4 10 30)"))

It imports openenv-core and pydantic only: none of our server side
(env_servers, grpc, protobuf, the domains' dependencies), as OpenEnv's own
environments split client and server. The servers are `lats serve openenv
NAME` (env_servers.openenv_app) and the OpenEnv environment directory
deploy/openenv/lats_env.
"""

from lats_openenv.client import LatsEnv
from lats_openenv.models import LatsAction, LatsObservation, LatsState

__all__ = ["LatsAction", "LatsEnv", "LatsObservation", "LatsState"]
