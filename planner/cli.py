"""`lats serve planner` and `lats solve`."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
from pathlib import Path

import click
from google.protobuf import json_format

from lats_runtime.run_status import RunStatus
from lats_runtime.serving import ServerOptions, ServiceSpec, serve_forever
from lats_pb import planner_pb2, planner_pb2_grpc

from planner.event_printer import EventPrinter


def _default_db() -> str:
    return str(Path.home() / ".local" / "share" / "lats" / "runs.sqlite3")


def advertised_address(host: str, port: int, advertise: str | None) -> str:
    """Where other processes reach this planner: --advertise, else the listening
    host, else (listening on every interface) this machine's own address."""
    if advertise:
        return advertise
    if host in ("", "0.0.0.0", "::", "[::]"):
        name = socket.gethostname()
        try:
            host = socket.gethostbyname(name)
        except OSError:
            host = name
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


@click.command()
@click.option("--host", default="127.0.0.1", envvar="LATS_HOST", show_default=True)
@click.option("--port", default=50053, type=int, envvar="LATS_PORT", show_default=True,
              help="0 picks a free port.")
@click.option("--gateway", required=True, envvar="LATS_GATEWAY",
              help="The LLM gateway: host:port, several replicas as host:port,host:port, "
                   "or dns:///name:port (calls are balanced round-robin).")
@click.option("--db", default=_default_db, envvar="LATS_PLANNER_DB",
              show_default="~/.local/share/lats/runs.sqlite3",
              help="Where runs are stored: a SQLite file, or postgresql://USER:PASS@HOST/DB "
                   "shared by every planner replica (any replica then answers GetRun).")
@click.option("--heartbeat", default=5.0, type=click.FloatRange(min=0, min_open=True),
              envvar="LATS_HEARTBEAT", show_default=True,
              help="Seconds between renewals of this planner's lease on its runs.")
@click.option("--lease", default=30.0, type=click.FloatRange(min=0, min_open=True),
              envvar="LATS_LEASE", show_default=True,
              help="A RUNNING run not renewed for this long is marked interrupted.")
@click.option("--max-runs", default=8, type=int, envvar="LATS_MAX_RUNS", show_default=True,
              help="Searches that may run at once.")
@click.option("--env-timeout", default=120.0, type=float, envvar="LATS_ENV_TIMEOUT",
              show_default=True, help="Deadline (s) of each environment call.")
@click.option("--model-timeout", default=600.0, type=float, envvar="LATS_MODEL_TIMEOUT",
              show_default=True, help="Deadline (s) of each model call.")
@click.option("--deadline", default=60.0, type=float, envvar="LATS_DEADLINE", show_default=True,
              help="Server-side deadline (s) for unary calls.")
@click.option("--gateway-check", default=5.0, type=click.FloatRange(min=0, min_open=True),
              envvar="LATS_GATEWAY_CHECK", show_default=True,
              help="Seconds a new search waits for a gateway to answer DescribeBackend; "
                   "without an answer Solve fails at once (UNAVAILABLE, naming the gateway). "
                   "Model calls during a search keep their own 30 s retry window.")
@click.option("--advertise", default=None, envvar="LATS_ADVERTISE", show_envvar=True,
              help="host:port at which the run viewer reaches this replica to watch its "
                   "runs live (default: the listening host and port; on 0.0.0.0, this "
                   "machine's own address). In Kubernetes: $(POD_IP):PORT.")
@click.option("--metrics-port", default=None, type=click.IntRange(0, 65535),
              envvar="LATS_METRICS_PORT", show_envvar=True,
              help="Serve Prometheus metrics at http://HOST:PORT/metrics (0 = any free port; "
                   "unset = no metrics endpoint).")
def serve_planner(host, port, gateway, db, heartbeat, lease, max_runs,
                  env_timeout, model_timeout, deadline, gateway_check, advertise, metrics_port):
    """Run the planner service (LATS search over any environment server)."""
    from lats_runtime.readiness import watch_readiness
    from planner.gateway_client import GatewayClient
    from planner.runs import LeaseSettings, open_run_store
    from planner.replica import PlannerSettings
    from planner.service import PlannerServicer

    try:
        lease_settings = LeaseSettings(heartbeat, lease)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--heartbeat/--lease") from None

    async def main() -> None:
        store = open_run_store(db)
        try:
            await store.open()
        except Exception as exc:  # noqa: BLE001 - any store failure is reported in one line
            raise click.ClickException(f"cannot open the run store {store.location}: "
                                       f"{' '.join(str(exc).split())}") from None
        client = GatewayClient(gateway, timeout=model_timeout)
        settings = PlannerSettings(env_timeout, max_runs, lease_settings,
                                   gateway_check_seconds=gateway_check)
        servicer = PlannerServicer(client, store, settings)

        watchers: list[asyncio.Task] = []

        async def stopped() -> None:
            for watcher in watchers:
                watcher.cancel()
            await servicer.stop()
            await client.close()

        spec = ServiceSpec(
            planner_pb2.DESCRIPTOR.services_by_name["Planner"].full_name,
            lambda server: planner_pb2_grpc.add_PlannerServicer_to_server(servicer, server))

        async def started(running):
            servicer.advertise(advertised_address(host, running.port, advertise))
            await servicer.start()
            # Ready (health service lats.v1.Planner) while the gateway answers.
            watchers.append(asyncio.create_task(watch_readiness(running, [client.upstream()])))

        try:
            await serve_forever([spec], ServerOptions(address=f"{host}:{port}",
                                                      unary_deadline_seconds=deadline,
                                                      metrics_port=metrics_port,
                                                      name="planner", ready_at_start=False),
                                on_started=started,
                                on_stopping=servicer.begin_shutdown, on_stopped=stopped)
        finally:
            await store.close()

    asyncio.run(main())


@click.command()
@click.option("--planner", "planner_address", required=True, envvar="LATS_PLANNER",
              help="The planner: host:port, a list of replicas, or dns:///name:port.")
@click.option("--env", "env_address", required=True, envvar="LATS_ENV",
              help="The environment server: host:port, a list of replicas, or dns:///name:port.")
@click.option("--task", "task_id", required=True, help="Task id (see the environment's ListTasks).")
@click.option("--run-id", default=None, help="Name the run (default: generated).")
@click.option("--fallback-env", default="",
              help="lats_fallback: host:port of the environment searched if the first fails.")
@click.option("--method", default="lats", show_default=True,
              help="Search method (lats, lats_paper, best_of_n, lats_dfs, lats_fallback, react, "
                   "react_bok, reflexion, cot, cot_sc, tot_dfs, tot_bfs).")
@click.option("-n", "--n-samples", type=int, default=None, help="Actions sampled per expansion (n).")
@click.option("-k", "--iterations", type=int, default=None, help="MCTS iterations (k).")
@click.option("-d", "--max-depth", type=int, default=None, help="Depth limit (d).")
@click.option("-P", "--parallel", type=click.IntRange(1), default=1, show_default=True,
              help="lats: MCTS iterations in flight at once (tree-parallel, virtual loss).")
@click.option("-w", "--exploration-weight", type=float, default=None, help="UCT weight w.")
@click.option("--lambda", "value_weight", type=float, default=None,
              help="V = lambda*LM + (1-lambda)*SC.")
@click.option("--temperature", type=float, default=None)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--reflection/--no-reflection", default=None)
@click.option("--model", default=None, help="Model name passed to the gateway.")
@click.option("--max-calls", type=int, default=None, help="Model-call budget of the run.")
@click.option("--max-tokens", type=int, default=None, help="Token budget of the run.")
@click.option("--json", "as_json", is_flag=True, help="Print events as JSON lines.")
@click.option("--timeout", type=float, default=3600.0, show_default=True,
              help="Give up on the whole search after this many seconds.")
def solve(planner_address, env_address, task_id, run_id, fallback_env, method, n_samples, iterations, max_depth,
          parallel, exploration_weight, value_weight, temperature, seed, reflection, model, max_calls,
          max_tokens, as_json, timeout):
    """Search one task and print the search as it grows."""
    from lats_client import LatsError, Planner
    from lats_runtime.channels import AddressError

    settings = dict(method=method, n=n_samples, k=iterations, depth=max_depth,
                    parallel=parallel, exploration_weight=exploration_weight,
                    value_weight=value_weight, temperature=temperature, seed=seed,
                    reflection=reflection, model=model, max_calls=max_calls,
                    max_tokens=max_tokens, fallback_env_address=fallback_env or None)
    printer = EventPrinter(sys.stdout)
    try:
        with Planner(planner_address) as planner:
            search = planner.solve(env_address, task_id, run_id=run_id, timeout=timeout,
                                   **settings)
            for event in search:
                if as_json:
                    click.echo(json.dumps(json_format.MessageToDict(event.message)))
                else:
                    printer.print(event.message)
    except AddressError as exc:
        raise click.BadParameter(str(exc), param_hint="--planner") from None
    except LatsError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    sys.exit(0 if search.final.status is not RunStatus.ERROR else 1)
