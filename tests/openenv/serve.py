"""Serves GridWalk with OpenEnv's own app (`create_app`) on a loopback port.

    python -m tests.openenv.serve [--max-envs N] [--port PORT]

One process serves three OpenEnv apps, each at its own path: /steady
(GridWalk), /noisy (walls from entropy) and /drifting (deterministic for four
moves only); a client's base URL is http://HOST:PORT/steady and so on. Prints
"listening on 127.0.0.1:PORT" once the socket is bound, then serves until
SIGTERM.
"""

from __future__ import annotations

import argparse
import signal
import socket
import sys

import uvicorn
from fastapi import FastAPI
from openenv.core.env_server.http_server import create_app

from tests.openenv.gridwalk import (DriftingGridWalkEnvironment, GridAction, GridObservation,
                                    GridWalkEnvironment, NoisyGridWalkEnvironment)

KINDS = {"steady": GridWalkEnvironment, "noisy": NoisyGridWalkEnvironment,
         "drifting": DriftingGridWalkEnvironment}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-envs", type=int, default=32)
    parser.add_argument("--port", type=int, default=0, help="0: a free port")
    args = parser.parse_args()
    root = FastAPI()
    for kind, environment in KINDS.items():
        root.mount(f"/{kind}", create_app(environment, GridAction, GridObservation,
                                          env_name="gridwalk", max_concurrent_envs=args.max_envs))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    print(f"listening on 127.0.0.1:{sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(root, log_level="warning", ws_max_size=16 * 1024 * 1024)
    for stop in (signal.SIGTERM, signal.SIGINT):   # uvicorn re-raises it after its shutdown
        signal.signal(stop, lambda *_: sys.exit(0))
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
