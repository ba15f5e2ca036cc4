"""`lats demo`: the main job. Starts the three services as separate processes,
runs one real LATS search and streams it as it grows, then stops them. The run
viewer (`lats serve ui`) runs beside them: the search can be watched as a tree
in a browser at the address printed first.

Defaults: the embedded offline model (fetched on first use), the code-runner
environment on HumanEval/26 (the model's first program misreads "remove all
elements that occur more than once", so reflection and search have work to
do), and a budget that finishes in about ten to fifteen minutes on 2 CPU cores.

The run is stored where `lats runs` and `lats serve ui` look by default (the
planners' default store, or --db), so it can be reopened after the demo ends;
the last lines say how.
"""

from __future__ import annotations

import shlex
import sys
import uuid

import click

from lats_runtime.run_status import RunStatus

from lats_runtime.processes import ServiceStartError, running_services, stop_on_signals
from lats.run_inspection.cli import default_db
from planner.event_printer import EventPrinter


def _stream(planner: str, env: str, task: str, run_id: str, settings: dict) -> int:
    """Runs the search through the Python client, printing it as it grows."""
    from lats_client import LatsError, Planner

    printer = EventPrinter(sys.stdout)
    try:
        with Planner(planner) as client:
            search = client.solve(env, task, run_id=run_id, **settings)
            for event in search:
                printer.print(event.message)
    except LatsError as exc:
        raise click.ClickException(str(exc)) from None
    return 0 if search.final.status is not RunStatus.ERROR else 1


def _reopen_hint(run_id: str, db: str) -> str:
    store = "" if db == default_db() else f" --db {shlex.quote(db)}"
    return (f"the run is stored in {db}; reopen it any time:\n"
            f"  lats runs show {run_id}{store}       # the tree, in the terminal\n"
            f"  lats serve ui{store}                  # then open "
            f"http://127.0.0.1:8080/run?id={run_id}\n"
            f"  lats runs list{store}                 # every stored run")


@click.command()
@click.option("--backend", default="local", show_default=True,
              type=click.Choice(["local", "openai", "replay", "scripted"]))
@click.option("--model", default="qwen2.5-coder-1.5b", show_default=True,
              help="Model name (local: qwen2.5-coder-1.5b or qwen2.5-coder-0.5b).")
@click.option("--gateway-arg", "gateway_args", multiple=True,
              help="Extra argument for `lats serve gateway` (repeatable), e.g. --replay=FILE.")
@click.option("--env", "env_name", default="coderunner", show_default=True)
@click.option("--task", default="HumanEval/26", show_default=True)
@click.option("-n", "--n-samples", default=3, show_default=True)
@click.option("-k", "--iterations", default=4, show_default=True)
@click.option("-d", "--max-depth", default=4, show_default=True)
@click.option("--max-calls", default=40, show_default=True, help="Model-call budget.")
@click.option("--seed", default=1, show_default=True)
@click.option("--ui/--no-ui", default=True, show_default=True,
              help="Start the run viewer to watch the search in a browser.")
@click.option("--db", default=default_db, envvar="LATS_PLANNER_DB", show_envvar=True,
              show_default="~/.local/share/lats/runs.sqlite3",
              help="Where the run is stored (the default is where `lats runs` and "
                   "`lats serve ui` look).")
def demo(backend, model, gateway_args, env_name, task, n_samples, iterations, max_depth,
         max_calls, seed, ui, db):
    """Run a real LATS search across three services and print it as it grows."""
    if backend == "local":
        from llm_gateway.model_cli import fetch

        click.echo(f"model: {model} (embedded, CPU); fetching it if needed ...")
        click.get_current_context().invoke(fetch, name=model, fetch_all=False, cache_dir=None)
    specs = [
        ("env", ["env", env_name]),
        # CPU generation of a whole program can take minutes: no short deadlines.
        ("gateway", ["gateway", "--backend", backend, "--model", model,
                     "--deadline", "1800", *gateway_args]),
        ("planner", ["planner", "--gateway", "{gateway}", "--model-timeout", "1800",
                     "--db", db]),
    ]
    if ui:
        specs.append(("ui", ["ui", "--db", db]))
    click.echo("starting the environment, the gateway and the planner ...")
    run_id = uuid.uuid4().hex
    try:
        with stop_on_signals(), running_services(specs, timeout=600) as services:
            for name in ("env", "gateway", "planner"):
                click.echo(f"  {name:8s} {services[name].address}")
            if ui:
                click.echo(f"  watch the search as a tree: "
                           f"http://{services['ui'].address}/run?id={run_id}")
            code = _stream(services["planner"].address, services["env"].address, task, run_id,
                           dict(n=n_samples, k=iterations, depth=max_depth, seed=seed,
                                temperature=0.8, max_calls=max_calls))
    except ServiceStartError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(_reopen_hint(run_id, db))
    sys.exit(code)
