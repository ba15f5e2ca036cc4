"""The server: one of our environments, served as `lats serve openenv NAME` serves it.

    uv run server [NAME] [OPTIONS]        # the [project.scripts] entry point
    python -m server.app [NAME] [OPTIONS]
    uvicorn server.app:app                # openenv.yaml's app; options from LATS_* variables

NAME is any registered environment (game24, coderunner, hotpotqa, webshop, ...;
default: $LATS_OPENENV_ENVIRONMENT, else game24); the options are those of
`lats serve openenv NAME --help` (--port, --snapshot-key-file, the domain's
settings), each also read from its LATS_* variable. `app` is built when first
asked for, so importing this module builds nothing.
"""

from __future__ import annotations

import functools
import os
import sys

from env_servers.openenv_app.cli import app_from_environment_variables, serve_openenv

DEFAULT_ENVIRONMENT = "game24"


def environment_name() -> str:
    return os.environ.get("LATS_OPENENV_ENVIRONMENT") or DEFAULT_ENVIRONMENT


@functools.cache
def _app():
    return app_from_environment_variables(environment_name())


def __getattr__(name: str):
    if name == "app":
        return _app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Serves until SIGTERM, printing "listening on HOST:PORT" once bound."""
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        args = [environment_name(), *args]
    serve_openenv.main(args=args, prog_name="server")


if __name__ == "__main__":
    main()
