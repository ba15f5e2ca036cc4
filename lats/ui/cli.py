"""`lats serve ui`: the run viewer, a web page over the planners' run store, or over
a planner (`--planner ADDR`: ListRuns and GetRun, no database credentials)."""

from __future__ import annotations

import asyncio
import logging
import signal

import click

from lats_runtime.addresses import listen_address
from lats_runtime.logs import set_service

log = logging.getLogger(__name__)


@click.command("ui")
@click.option("--host", default="127.0.0.1", envvar="LATS_HOST", show_default=True,
              show_envvar=True, help="Interface to listen on.")
@click.option("--port", default=8080, type=click.IntRange(0, 65535), envvar="LATS_PORT",
              show_default=True, show_envvar=True, help="Port to listen on (0 = any free port).")
@click.option("--db", default=None, envvar="LATS_PLANNER_DB", show_envvar=True,
              show_default="~/.local/share/lats/runs.sqlite3",
              help="The planners' run store: a SQLite file or postgresql://USER:PASS@HOST/DB.")
@click.option("--planner", "planner_address", default=None, metavar="ADDR",
              help="Read the runs through a planner (host:port, replicas, or "
                   "dns:///name:port) instead of opening the store.")
@click.option("--poll", "poll_seconds", default=2.0, show_default=True,
              type=click.FloatRange(min=0.1), envvar="LATS_UI_POLL", show_envvar=True,
              help="Seconds between reads of a running run's record when its planner "
                   "cannot be watched directly.")
def serve_ui(host: str, port: int, db: str | None, planner_address: str | None,
             poll_seconds: float) -> None:
    """Serve the run viewer: runs with filters, and each run's tree, live while it runs."""
    from aiohttp import web

    from lats.run_inspection.cli import default_db, open_source
    from lats.ui.app import make_app
    from lats_client import LatsError

    from click.core import ParameterSource

    source = click.get_current_context().get_parameter_source("db")
    if db and planner_address and source == ParameterSource.COMMANDLINE:
        raise click.UsageError("give --db or --planner, not both")
    set_service("ui")

    async def main() -> None:
        try:
            store = await open_source(db or default_db(), planner_address)
        except LatsError as exc:
            raise click.ClickException(str(exc)) from None
        runner = web.AppRunner(make_app(store, poll_seconds=poll_seconds),
                               access_log=None, shutdown_timeout=2.0)
        try:
            await runner.setup()
            site = web.TCPSite(runner, host, port)
            try:
                await site.start()
            except OSError as error:
                raise click.ClickException(f"cannot listen on {host}:{port}: {error}") from None
            bound = site._server.sockets[0].getsockname()[1]   # noqa: SLF001 - the real port
            address = listen_address(host, bound)
            log.info("run viewer on http://%s/ over %s", address, store.location)
            print(f"listening on {address}", flush=True)
            print(f"open http://{address}/", flush=True)
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, stop.set)
            await stop.wait()
            log.info("shutting down")
        finally:
            await runner.cleanup()
            await store.close()

    asyncio.run(main())
