"""`lats runs list | show RUN | export RUN...`: the planners' run store from a terminal.

Every command reads the store the planners write (`--db`, the same as
`lats serve planner --db`: a SQLite file or a postgresql:// URL), so it works
whether or not a planner is running; or, with `--planner ADDR`, asks a planner
(ListRuns, GetRun), which needs no database credentials. RUN is a run id or a
unique prefix of one.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import click

from lats_runtime.run_status import NAMED, from_wire, to_wire

from lats.run_inspection.views import STATUS_VALUES, message_json
from planner.runs import RunQuery, RunStore, open_run_store
from planner.runs.store import MAX_LIST_LIMIT


def default_db() -> str:
    from planner.cli import _default_db

    return _default_db()


def _group_planner() -> str | None:
    """`lats runs --planner ADDR list`: the group's --planner, for every subcommand."""
    parent = click.get_current_context().parent
    return (parent.params or {}).get("planner_address") if parent is not None else None


def db_option(function):
    function = click.option(
        "--planner", "planner_address", default=_group_planner, metavar="ADDR",
        help="Ask a planner (host:port, replicas, or dns:///name:port) instead of "
             "opening the store: any replica lists every run.")(function)
    return click.option(
        "--db", default=default_db, envvar="LATS_PLANNER_DB", show_envvar=True,
        show_default="~/.local/share/lats/runs.sqlite3",
        help="The planners' run store: a SQLite file or postgresql://USER:PASS@HOST/DB.",
    )(function)


async def open_source(location: str, planner_address: str | None):
    """The runs to read: a planner when an address is given, else the store."""
    if not planner_address:
        return await open_store(location)
    from lats.run_inspection.remote import PlannerRuns
    from lats_runtime.channels import AddressError

    try:
        source = PlannerRuns(planner_address)
    except AddressError as exc:
        raise click.BadParameter(str(exc), param_hint="--planner") from None
    await source.open()
    return source


async def open_store(location: str) -> RunStore:
    """The opened store; a ClickException that says why when it cannot be."""
    if "://" not in location and not Path(location).exists():
        raise click.ClickException(f"no run store at {location}; pass the planner's --db "
                                   "(or set LATS_PLANNER_DB)")
    store = open_run_store(location)
    try:
        await store.open()
    except Exception as exc:  # noqa: BLE001 - any store failure is reported in one line
        raise click.ClickException(f"cannot open the run store {store.location}: "
                                   f"{' '.join(str(exc).split())}") from None
    return store


async def find_run(store: RunStore, run_id: str):
    """The run named by an id or a unique prefix; ClickException otherwise."""
    run = await store.get(run_id)
    if run is not None:
        return run
    matches = await store.list_runs(RunQuery(run_id_prefix=run_id, limit=6))
    if len(matches) == 1:
        return await store.get(matches[0].run_id)
    if matches:
        shown = ", ".join(m.run_id for m in matches[:5])
        raise click.ClickException(f"{run_id!r} names several runs ({shown}"
                                   f"{', …' if len(matches) > 5 else ''}); give more of the id")
    raise click.ClickException(f"no run {run_id!r} in {store.location} "
                               "(`lats runs list` shows the runs)")


def _with_store(location: str, work, planner_address: str | None = None):
    from lats_client import LatsError

    async def main():
        store = await open_source(location, planner_address)
        try:
            return await work(store)
        finally:
            await store.close()

    try:
        return asyncio.run(main())
    except LatsError as exc:
        raise click.ClickException(str(exc)) from None


@click.group()
@click.option("--planner", "planner_address", default=None, metavar="ADDR",
              help="Ask this planner for the runs (ListRuns, GetRun) in every subcommand.")
def runs(planner_address: str | None) -> None:
    """The planners' stored runs: list them, show one as a tree, export them (JSON, or
    training data with --format trl)."""


def _statuses(values: tuple[str, ...]) -> tuple[int, ...]:
    return tuple(STATUS_VALUES[value] for value in values)


@runs.command("list")
@db_option
@click.option("--env", "environment", default="",
              help="Environment name, name@version, or a family (textarena: every textarena-GAME).")
@click.option("--method", default="", help="Search method, e.g. lats, react.")
@click.option("--status", "statuses", multiple=True, type=click.Choice(sorted(STATUS_VALUES)),
              help="Run status (repeatable).")
@click.option("--model", default="", help="Part of the model's name.")
@click.option("--task", default="", help="Part of the task id.")
@click.option("--limit", default=50, show_default=True,
              type=click.IntRange(1, MAX_LIST_LIMIT), help="Most runs to list.")
@click.option("--offset", default=0, type=click.IntRange(min=0), help="Runs to skip (paging).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per run and line.")
def list_runs(db, planner_address, environment, method, statuses, model, task, limit, offset,
              as_json):
    """List runs, newest first, as a table."""
    query = RunQuery(environment=environment, method=method, statuses=_statuses(statuses),
                     model=model, task=task, limit=limit, offset=offset)
    found = _with_store(db, lambda store: store.list_runs(query), planner_address)
    if as_json:
        for run in found:
            click.echo(json.dumps(message_json(run), ensure_ascii=False))
        return
    from rich.console import Console

    from lats.run_inspection.table import runs_table

    console = Console()
    if not console.is_terminal:
        console = Console(width=250)
    if not found:
        click.echo("no runs match", err=True)
        return
    console.print(runs_table(found))


@runs.command()
@db_option
@click.argument("run_id")
@click.option("--depth", type=click.IntRange(min=0), default=None,
              help="Show the tree down to this depth only.")
@click.option("--full", is_flag=True, help="Whole actions, observations and reflections.")
def show(db, planner_address, run_id, depth, full):
    """Show one run: its settings, result, hidden-test score and search tree."""
    from rich.console import Console

    from lats.run_inspection.text_tree import render

    run = _with_store(db, lambda store: find_run(store, run_id), planner_address)
    console = Console()
    if not console.is_terminal:
        console = Console(width=200)
    console.print(render(run, max_depth=depth, full=full, width=max(40, console.width - 60)))


@runs.command()
@db_option
@click.argument("run_ids", nargs=-1, metavar="[RUN]...")
@click.option("--format", "form", type=click.Choice(["json", "trl"]), default="json",
              show_default=True,
              help="json: one run with its whole tree (protobuf's JSON mapping); trl: training "
                   "data for the runs, JSONL files with TRL's field names "
                   "(docs/training-data.md).")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None,
              help="json: the file to write (default: standard output); trl: the directory "
                   "to write (required).")
@click.option("--env", "environment", default="", help="trl, no RUN given: environment name.")
@click.option("--method", default="", help="trl, no RUN given: search method.")
@click.option("--status", "statuses", multiple=True, type=click.Choice(sorted(STATUS_VALUES)),
              help="trl, no RUN given: run status (repeatable; default: every ended run).")
@click.option("--model", default="", help="trl, no RUN given: part of the model's name.")
@click.option("--task", default="", help="trl, no RUN given: part of the task id.")
@click.option("--limit", default=MAX_LIST_LIMIT, show_default=True,
              type=click.IntRange(1, MAX_LIST_LIMIT), help="trl, no RUN given: most runs.")
def export(db, planner_address, run_ids, form, output, environment, method, statuses, model,
           task, limit):
    """Export runs: one run as JSON, or runs as training data (--format trl).

    RUN is a run id or a unique prefix of one. With --format trl and no RUN,
    the runs the filters match are exported (newest first).
    """
    if form == "json":
        if len(run_ids) != 1:
            raise click.UsageError("--format json exports exactly one RUN")
        if output is not None and output.is_dir():
            raise click.UsageError(f"-o {output} is a directory; --format json writes a file")
        _export_json(db, run_ids[0], output, planner_address)
        return
    if planner_address:
        raise click.UsageError("--format trl reads each run's model calls, which only the run "
                               "store keeps: pass --db instead of --planner")
    if output is None:
        raise click.UsageError("--format trl needs -o DIRECTORY to write its files into")
    if output.exists() and not output.is_dir():
        raise click.UsageError(f"-o {output} is a file; --format trl writes a directory")
    ended = tuple(to_wire(status) for status in NAMED if status.ended)
    query = RunQuery(environment=environment, method=method,
                     statuses=_statuses(statuses) or ended, model=model, task=task, limit=limit)

    async def gather(store: RunStore):
        chosen = ([await find_run(store, run_id) for run_id in run_ids] if run_ids
                  else [await store.get(listed.run_id) for listed in await store.list_runs(query)])
        return [(run, await store.calls(run.run_id)) for run in chosen if run is not None]

    from lats.run_inspection.training import write_training_data

    selected = _with_store(db, gather)
    if not selected:
        raise click.ClickException("no runs match; `lats runs list` shows the runs")
    counts = write_training_data(selected, output)
    without = sum(1 for _, calls in selected if not calls)
    click.echo(f"wrote {len(selected)} run(s) to {output}: {counts['expansions']} expansion "
               f"completions, {counts['preferences']} preference pairs "
               f"({counts['unpaired']} unpaired rows), {counts['answers']} "
               f"answer steps" + (f" ({without} run(s) kept no model calls: stored before "
                                  "planners kept them)" if without else ""), err=True)
    if not counts["preferences"] and counts["expansions"]:
        click.echo("no preference pairs: no two sibling completions reached terminal states "
                   "with different rewards (where pairs come from, and how to get more: "
                   "docs/training-data.md)", err=True)


def _export_json(db: str, run_id: str, output: Path | None,
                 planner_address: str | None = None) -> None:
    run = _with_store(db, lambda store: find_run(store, run_id), planner_address)
    text = json.dumps(message_json(run), indent=2, ensure_ascii=False) + "\n"
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
        click.echo(f"wrote run {run.run_id} ({len(run.nodes)} nodes, "
                   f"{from_wire(run.status)}) to {output}", err=True)
