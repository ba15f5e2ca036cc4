"""`lats demo`: the main job. Starts the three services as separate processes,
runs one real LATS search and streams it as it grows, then stops them. The run
viewer (`lats serve ui`) runs beside them: the search can be watched as a tree
in a browser at the address printed first.

Defaults: the embedded offline model (fetched on first use), the code-runner
environment on HumanEval/26 (the model's first program misreads "remove all
elements that occur more than once", so reflection and search have work to
do), and a budget that finishes in about ten to fifteen minutes on 2 CPU cores.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import uuid
from pathlib import Path

import click
import grpc

from lats_runtime.channels import open_channel
from lats.processes import ServiceStartError, running_services, stop_on_signals
from lats_pb import llm_pb2, planner_pb2, planner_pb2_grpc
from planner.event_printer import EventPrinter


async def _stream(planner: str, request: planner_pb2.SolveRequest) -> int:
    printer = EventPrinter(sys.stdout)
    async with open_channel(planner) as channel:
        status = planner_pb2.RUN_STATUS_ERROR
        async for event in planner_pb2_grpc.PlannerStub(channel).Solve(request):
            printer.print(event)
            if event.HasField("finished"):
                status = event.finished.status
    return 0 if status != planner_pb2.RUN_STATUS_ERROR else 1


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
def demo(backend, model, gateway_args, env_name, task, n_samples, iterations, max_depth,
         max_calls, seed, ui):
    """Run a real LATS search across three services and print it as it grows."""
    if backend == "local":
        from llm_gateway.model_cli import fetch

        click.echo(f"model: {model} (embedded, CPU); fetching it if needed ...")
        click.get_current_context().invoke(fetch, name=model, fetch_all=False, cache_dir=None)
    with tempfile.TemporaryDirectory() as tmp:
        specs = [
            ("env", ["env", env_name]),
            # CPU generation of a whole program can take minutes: no short deadlines.
            ("gateway", ["gateway", "--backend", backend, "--model", model,
                         "--deadline", "1800", *gateway_args]),
            ("planner", ["planner", "--gateway", "{gateway}", "--model-timeout", "1800",
                         "--db", str(Path(tmp) / "runs.sqlite3")]),
        ]
        if ui:
            specs.append(("ui", ["ui", "--db", str(Path(tmp) / "runs.sqlite3")]))
        click.echo("starting the environment, the gateway and the planner ...")
        try:
            with stop_on_signals(), running_services(specs, timeout=600) as services:
                for name in ("env", "gateway", "planner"):
                    click.echo(f"  {name:8s} {services[name].address}")
                run_id = uuid.uuid4().hex
                if ui:
                    click.echo(f"  watch the search as a tree: "
                               f"http://{services['ui'].address}/run?id={run_id}")
                request = planner_pb2.SolveRequest(
                    env_address=services["env"].address, task_id=task, run_id=run_id,
                    config=planner_pb2.SearchConfig(
                        n_samples=n_samples, iterations=iterations, max_depth=max_depth,
                        seed=seed, temperature=0.8,
                        budget=llm_pb2.Budget(max_calls=max_calls)))
                code = asyncio.run(_stream(services["planner"].address, request))
        except ServiceStartError as exc:
            raise click.ClickException(str(exc)) from exc
    sys.exit(code)
