"""`lats bench`: run a slice of tasks with several methods and budgets, then report.

    lats bench --planner HOST:PORT --env HOST:PORT --split test --slice 0:10 \\
        -m lats -m reflexion -m react_bok -k 1,5,10 --max-calls 60 --out runs/cmp
    lats bench --start-services --env-name game24 --backend scripted \\
        --gateway-arg=--script=FILE ... --out DIR
    lats bench --out DIR --resume          # continue a killed bench
    lats bench --out DIR --report-only     # re-print the table, re-draw the plot

The bench directory holds bench.sqlite3 (records, as they finish),
results.jsonl, summary.md, success_vs_k.png, per variant the files the
official evaluators read (programming: human-eval samples and the problem
file of the bench's tasks; HotPotQA: predictions and gold; the command that
checks them is printed), and with --start-services the planner's own run
store (planner-runs.sqlite3, every search tree).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sys
import time
from pathlib import Path

import click
import grpc

from lats_pb import environment_pb2 as env_pb
from lats_pb import environment_pb2_grpc as env_grpc

from lats.method_comparison.plot import plot_success_vs_k
from lats.method_comparison.runner import PlannerUnreachable, run_jobs
from lats.method_comparison.store import BenchStore
from lats.method_comparison.summary import group_key, summarize, to_markdown, to_rich
from lats.method_comparison.variants import OPTION_FIELDS, MethodVariant, plan_jobs
from lats_runtime.interrupts import run_until_interrupted
from lats_runtime.processes import stop_on_signals
from lats_runtime.channels import open_channel

DB_NAME = "bench.sqlite3"
EVALUATED_ENVIRONMENTS = ("coderunner", "hotpotqa", "hotpotqa-cot")   # exports.py


def record_line(record: dict) -> str:
    """One finished job as the bench prints it: the search's own outcome and, apart,
    what Score said (a search can end `solved` on its visible checks and fail Score)."""
    if record["scored"]:
        score = "Score passed" if record["success"] else "Score FAILED"
    else:
        score = "not scored"
    detail = record["error"] or f"{record['calls']} calls, {record['wall_seconds']:.1f}s"
    return (f"{record['task_id']} {record['label']} k={record['k']}: search {record['status']}, "
            f"{score}; {detail}")


def _int_list(value: str, name: str) -> list[int]:
    try:
        numbers = [int(part) for part in value.split(",") if part.strip()]
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a comma-separated list of integers",
                                 param_hint=name) from None
    if any(n < 0 for n in numbers):
        raise click.BadParameter("values must be >= 0", param_hint=name)
    return numbers


def _slice(tasks: list[str], spec: str) -> list[str]:
    match = re.fullmatch(r"\s*(-?\d*)\s*:\s*(-?\d*)\s*", spec)
    if not match:
        raise click.BadParameter(f"{spec!r} is not START:STOP (e.g. 0:10)", param_hint="--slice")
    start, stop = (int(x) if x else None for x in match.groups())
    return tasks[start:stop]


async def _list_tasks(env_address: str, split: str) -> list[str]:
    """The split's task ids; a ClickException naming the environment when it fails."""
    tasks: list[str] = []
    async with open_channel(env_address) as channel:
        stub = env_grpc.EnvironmentStub(channel)
        token = ""
        while True:
            try:
                page = await stub.ListTasks(env_pb.ListTasksRequest(
                    split=split, page_size=1000, page_token=token), timeout=30)
            except grpc.aio.AioRpcError as exc:
                raise click.ClickException(
                    f"environment at {env_address}: {exc.code().name}: "
                    f"{' '.join((exc.details() or '').split())}") from None
            tasks += page.task_ids
            token = page.next_page_token
            if not token:
                return tasks


SLOW_CALL_SECONDS = 1800   # a CPU model on a busy machine: minutes per call are normal


def _service_specs(env_name, env_args, backend, model, gateway_args, out: Path, runs: int,
                   ui: bool = False):
    """The three services (and the run viewer); model calls may be slow (the user's
    --gateway-arg wins)."""
    gateway = ["gateway", "--backend", backend, *(["--model", model] if model else []),
               "--deadline", str(SLOW_CALL_SECONDS), *gateway_args]
    viewer = [("ui", ["ui", "--db", str(out / "planner-runs.sqlite3")])] if ui else []
    return [
        ("env", ["env", env_name, *env_args]),
        ("gateway", gateway),
        ("planner", ["planner", "--gateway", "{gateway}", "--db",
                     str(out / "planner-runs.sqlite3"), "--max-runs", str(runs),
                     "--model-timeout", str(SLOW_CALL_SECONDS)]),
        *viewer,
    ]


@contextlib.contextmanager
def _services(start: bool, planner, env, specs):
    if not start:
        if not planner or not env:
            raise click.UsageError("give --planner and --env (host:port of running services), "
                                   "or --start-services to start them")
        yield planner, env
        return
    from lats_runtime.processes import ServiceStartError, running_services

    try:
        with running_services(specs, timeout=900) as running:
            for name in ("env", "gateway", "planner"):
                click.echo(f"  {name:8s} {running[name].address}", err=True)
            if "ui" in running:
                click.echo(f"  watch the searches: http://{running['ui'].address}/", err=True)
            yield running["planner"].address, running["env"].address
    except ServiceStartError as exc:
        raise click.ClickException(str(exc)) from exc


def write_samples(records: list[dict], out: Path) -> list[Path]:
    """The official evaluators' files (human-eval samples + problems, HotPotQA
    predictions + gold) per variant group; prints the commands that check them."""
    from lats.method_comparison.exports import write_exports

    exported = write_exports(records, out, group_key)
    for problem in exported.problems:
        click.echo(problem, err=True)
    for command in exported.commands:
        click.echo(f"check with the official evaluator: {command}", err=True)
    for note in exported.notes:
        click.echo(note, err=True)
    return exported.paths


def report(store: BenchStore, out: Path, samples: bool | None, labels=()) -> None:
    """Exports the records, prints and writes the summary, draws the plot."""
    from rich.console import Console

    records = store.records()
    if not records:
        click.echo("no finished jobs yet", err=True)
        return
    store.export_jsonl(out / "results.jsonl")
    rows = summarize(records, labels)
    (out / "summary.md").write_text(to_markdown(rows), encoding="utf-8")
    console = Console()
    if not console.is_terminal:     # a log or a pipe: never fold the table
        console = Console(width=250)
    console.print(to_rich(rows))
    written = [out / "results.jsonl", out / "summary.md"]
    try:
        written.append(plot_success_vs_k(records, out / "success_vs_k.png"))
    except ImportError:
        click.echo("no success_vs_k.png: plotting needs the `plot` extra "
                   "(pip install 'lats-platform[plot]')", err=True)
    evaluated = any(r["environment"].split("@")[0] in EVALUATED_ENVIRONMENTS for r in records)
    if samples or (samples is None and evaluated):
        written += write_samples(records, out)
    click.echo("wrote " + ", ".join(str(p) for p in written), err=True)


def _list_methods(ctx: click.Context, _param, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from planner.methods import METHODS

    for spec in METHODS.values():
        click.echo(f"{spec.name:10s} {spec.summary}")
    click.echo("\nswitches (NAME:KEY=VALUE,...): " + ", ".join(OPTION_FIELDS))
    ctx.exit()


@click.command()
@click.option("--list-methods", is_flag=True, expose_value=False, is_eager=True,
              callback=_list_methods, help="List the methods and their switches, then exit.")
@click.option("--planner", "planner_address", envvar="LATS_PLANNER",
              help="Running planners: host:port, host:port,host:port or dns:///name:port. "
                   "Jobs are spread over them; a job whose planner dies runs again on another.")
@click.option("--env", "env_address", envvar="LATS_ENV",
              help="Running environment server(s): host:port, a list, or dns:///name:port.")
@click.option("--start-services", is_flag=True,
              help="Start the environment, gateway and planner as processes for this bench.")
@click.option("--env-name", default="game24", show_default=True,
              help="With --start-services: the environment (`lats serve env NAME`).")
@click.option("--env-arg", "env_args", multiple=True,
              help="With --start-services: extra argument for `lats serve env` (repeatable).")
@click.option("--backend", default="local", show_default=True,
              type=click.Choice(["local", "openai", "replay", "scripted"]),
              help="With --start-services: the gateway backend.")
@click.option("--gateway-arg", "gateway_args", multiple=True,
              help="With --start-services: extra argument for `lats serve gateway` "
                   "(repeatable), e.g. --gateway-arg=--record=FILE.")
@click.option("--model", default="",
              help="Model: the gateway's with --start-services, else sent with each request.")
@click.option("--task", "task_ids", multiple=True, help="Task id (repeatable).")
@click.option("--split", default="", help="Split to take tasks from (\"\" = the default).")
@click.option("--slice", "task_slice", default=":", show_default=True,
              help="START:STOP of the split's task list, e.g. 0:10.")
@click.option("-m", "--method", "methods", multiple=True,
              help="Method variant NAME[:KEY=VALUE,...] (repeatable), e.g. lats, "
                   "lats:lambda=1, lats:lm_value=off, reflexion, react_bok, tot_bfs. "
                   "Default: lats.")
@click.option("-k", "--iterations", "ks", default="",
              help="k, or a comma-separated sweep like 1,5,10 (default: env hint or method's).")
@click.option("-n", "--n-samples", type=click.IntRange(min=1), default=None)
@click.option("-d", "--max-depth", type=click.IntRange(min=1), default=None)
@click.option("--temperature", type=float, default=None)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--max-calls", "max_calls", default="",
              help="Model-call budget per task, or a comma-separated sweep.")
@click.option("--max-tokens", type=click.IntRange(min=0), default=0,
              help="Token budget per task (0 = none).")
@click.option("--concurrency", type=click.IntRange(min=1), default=2, show_default=True,
              help="Searches in flight at once.")
@click.option("--timeout", type=float, default=3600.0, show_default=True,
              help="Give up on one search after this many seconds.")
@click.option("--out", "out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Bench directory (created).")
@click.option("--resume", is_flag=True, help="Continue the bench in --out; finished jobs are kept.")
@click.option("--retry-errors", is_flag=True, help="With --resume: run errored jobs again.")
@click.option("--report-only", is_flag=True, help="Only print and write the report of --out.")
@click.option("--samples/--no-samples", default=None,
              help="Write the official evaluators' files: human-eval samples and problems, "
                   "HotPotQA predictions and gold (default: for those environments).")
@click.option("--ui", is_flag=True,
              help="With --start-services: also start the run viewer, to watch each search "
                   "as a tree while the bench runs.")
def bench(planner_address, env_address, start_services, env_name, env_args, backend,
          gateway_args, model, task_ids, split, task_slice, methods, ks, n_samples, max_depth,
          temperature, seed, max_calls, max_tokens, concurrency, timeout, out, resume,
          retry_errors, report_only, samples, ui):
    """Compare methods at equal budgets on a slice of tasks; store, summarise, plot."""
    try:
        variants = [MethodVariant.parse(spec) for spec in (methods or ("lats",))]
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--method") from None
    k_values = _int_list(ks, "-k") or [None]
    call_budgets = _int_list(max_calls, "--max-calls") or [0]
    out.mkdir(parents=True, exist_ok=True)
    store = BenchStore(out / DB_NAME)
    try:
        if report_only:
            report(store, out, samples, [v.label for v in variants] if methods else ())
            return
        finished = store.count()
        if finished and not resume:
            raise click.ClickException(
                f"{out} already holds {finished} finished jobs; pass --resume to continue that "
                "bench, or choose a new --out")
        specs = _service_specs(env_name, env_args, backend, model, gateway_args, out,
                               max(8, concurrency), ui)
        if start_services and backend == "local":
            from llm_gateway.model_store import DEFAULT_MODEL, ensure_model

            ensure_model(model or DEFAULT_MODEL)      # fetched once, before the services start
        with stop_on_signals(), _services(start_services, planner_address, env_address,
                                          specs) as (planner, env):
            tasks = list(task_ids) or _slice(asyncio.run(_list_tasks(env, split)), task_slice)
            if not tasks:
                raise click.ClickException("no tasks: check --task, --split and --slice")
            base = dict(n_samples=n_samples, max_depth=max_depth, temperature=temperature,
                        seed=seed, model="" if start_services else model)
            jobs = plan_jobs(tasks, variants, base, k_values, call_budgets, max_tokens)
            done = store.done_keys(include_errors=not retry_errors)
            todo = [job for job in jobs if job.key not in done]
            click.echo(f"{len(jobs)} jobs ({len(tasks)} tasks x {len(variants)} methods x "
                       f"{len(k_values)} k x {len(call_budgets)} budgets); "
                       f"{len(jobs) - len(todo)} already done, {len(todo)} to run", err=True)
            session = store.new_session(sys.argv)
            try:
                _run(todo, planner, env, session, store, concurrency, timeout)
            except click.ClickException:
                report(store, out, samples, [v.label for v in variants])   # what finished
                raise
        report(store, out, samples, [v.label for v in variants])
    finally:
        store.close()


def _run(jobs, planner, env, session, store, concurrency, timeout) -> None:
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    if not jobs:
        return
    console = Console(stderr=True)
    solved = 0
    started = time.monotonic()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), TimeRemainingColumn(), console=console) as progress:
        bar = progress.add_task("searching", total=len(jobs))

        def on_record(record: dict) -> None:
            nonlocal solved
            store.put(record)
            solved += record["success"]
            progress.advance(bar)
            progress.update(bar, description=f"searching ({solved} solved)")
            progress.console.print(record_line(record), highlight=False, markup=False)

        try:
            run_until_interrupted(run_jobs(jobs, planner, env, session, on_record, concurrency,
                                           timeout))
        except* PlannerUnreachable as group:
            raise click.ClickException(
                f"no planner answers at {planner} ({group.exceptions[0]}); "
                "the finished jobs are stored: run again with --resume") from None
        except* KeyboardInterrupt:
            raise click.ClickException("interrupted; the finished jobs are stored: run again "
                                       "with --resume") from None
    click.echo(f"ran {len(jobs)} jobs in {time.monotonic() - started:.1f}s", err=True)
