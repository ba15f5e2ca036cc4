"""Settings of the OpenEnv bridge (`lats serve env openenv --help`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from env_servers.core.domain_settings import setting


@dataclass(frozen=True)
class OpenEnvSettings:
    """`url`: the OpenEnv server (http(s):// or ws(s)://); `pack`: a TOML pack file
    (env_servers.pack_file, plus its [openenv] and [tasks] tables)."""

    url: str = setting(
        "", env="LATS_OPENENV_URL",
        help="The OpenEnv environment server to front, e.g. http://127.0.0.1:8000.")
    pack: Path | None = setting(
        None, env="LATS_OPENENV_PACK", must_exist=True, dir_okay=False,
        help="A TOML pack file: prompts, grammar, rewards, tasks, and which action and "
             "observation fields to use ([openenv] action_field, observation_fields).")
    tasks: int = setting(
        100, env="LATS_OPENENV_TASKS", min=1, max=1_000_000,
        help="Tasks listed when the pack file names none: seed-0..seed-N-1, each a reset "
             "with that seed.")
    max_remote_sessions: int = setting(
        8, env="LATS_OPENENV_MAX_SESSIONS", min=1, max=1024,
        help="WebSocket sessions this bridge keeps open on the OpenEnv server at most "
             "(keep it within the server's max_concurrent_envs).")
    remote_timeout: float = setting(
        30.0, env="LATS_OPENENV_TIMEOUT", min=0, min_open=True,
        help="Seconds to wait for one answer of the OpenEnv server.")

    def __post_init__(self) -> None:
        if not self.url:
            raise ValueError("name the OpenEnv server: --url http://HOST:PORT "
                             "(or LATS_OPENENV_URL)")
        parts = urlsplit(self.url)
        if parts.scheme not in ("http", "https", "ws", "wss") or not parts.netloc:
            raise ValueError(f"--url {self.url!r} is not an http(s):// or ws(s):// address "
                             "of an OpenEnv server")
