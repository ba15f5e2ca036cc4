"""The typed OpenEnv client imports without our server side, as OpenEnv's
environments split client and server: `lats_openenv` needs openenv-core and
pydantic, never env_servers, gRPC, protobuf or the domains' packages.

openenv-core's own client modules import its server stack (fastapi, uvicorn:
`openenv.core` imports `openenv.core.env_server`), so those are not ours to
block; everything of ours below them is.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVER_SIDE = ("env_servers", "grpc", "google.protobuf", "lats_pb", "lats_runtime", "planner",
               "llm_gateway", "lats_client", "flask", "docker", "rapidfuzz")

PROGRAM = textwrap.dedent("""
    import sys

    BLOCKED = {blocked!r}

    class RefuseServerSide:
        def find_spec(self, name, path=None, target=None):
            if any(name == b or name.startswith(b + ".") for b in BLOCKED):
                raise ImportError(f"the client imported {{name}}")
            return None

    sys.meta_path.insert(0, RefuseServerSide())
    from lats_openenv import LatsAction, LatsEnv, LatsObservation, LatsState

    env = LatsEnv(base_url="http://127.0.0.1:9")           # no server: nothing is called
    assert env._step_payload(LatsAction(text="x")) == {{"text": "x"}}
    result = env._parse_result({{"observation": {{"text": "left: 24", "steps": 4,
                                                  "info": {{"solved": True}}}},
                                 "reward": 1.0, "done": True}})
    assert isinstance(result.observation, LatsObservation) and result.done
    assert result.observation.info == {{"solved": True}}
    assert env._parse_state({{"actions": ["a"], "step_count": 1}}).actions == ["a"]
    print("imported without:", ", ".join(BLOCKED))
""")


def test_the_client_and_its_models_import_without_the_server_side():
    program = PROGRAM.format(blocked=SERVER_SIDE)
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "imported without: env_servers" in done.stdout


def test_the_old_import_path_still_gives_the_client():
    from env_servers.openenv_app.client import LatsEnv as old_client
    from env_servers.openenv_app.models import LatsAction as old_action
    from lats_openenv import LatsAction, LatsEnv

    assert old_client is LatsEnv and old_action is LatsAction
