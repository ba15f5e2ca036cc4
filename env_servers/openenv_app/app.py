"""The OpenEnv app (openenv-core's own `create_app`) serving one of our domains."""

from __future__ import annotations

import functools

from fastapi import FastAPI
from openenv.core.env_server.http_server import create_app

from lats_openenv.models import LatsAction, LatsObservation

from env_servers.core.domain import Domain
from env_servers.core.settings import EnvSettings
from env_servers.openenv_app.environment import LatsOpenEnvironment, ServedDomain

DEFAULT_MAX_CONCURRENT_ENVS = 64


def build_app(domain: Domain, settings: EnvSettings,
              max_concurrent_envs: int = DEFAULT_MAX_CONCURRENT_ENVS) -> FastAPI:
    """OpenEnv's HTTP + WebSocket app for `domain`: one `LatsOpenEnvironment` per
    session, all over one `ServedDomain` that starts and stops with the app."""
    served = ServedDomain(domain, settings)
    factory = functools.partial(LatsOpenEnvironment, served)
    app = create_app(factory, LatsAction, LatsObservation, env_name=domain.name,
                     max_concurrent_envs=max_concurrent_envs)
    app.router.on_startup.insert(0, served.start)
    app.router.on_shutdown.append(served.close)
    app.state.served = served
    return app
