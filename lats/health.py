"""`lats health ADDRESS`: exit 0 when a LATS server's health service answers SERVING.

For container health checks (compose's `healthcheck`): any LATS server, any
service name. The default, "" (the server as a whole), is the server's
liveness; a service's full name (`--service lats.v1.Planner`,
`lats.v1.LlmGateway`, `lats.environment.v2.Environment`) is its readiness:
SERVING only while it can do its job (a planner's gateway answers, an
environment is loaded, a bridge's OpenEnv server answers). `--http` checks an
HTTP server instead (the run viewer): GET http://ADDRESS/healthz must answer 200.
"""

from __future__ import annotations

import sys
import urllib.error
import urllib.request

import click
import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


@click.command("health")
@click.argument("address", default="127.0.0.1:50051")
@click.option("--service", default="",
              help="Service to ask about: '' = the whole server (liveness); a service's full "
                   "name, e.g. lats.v1.Planner, asks its readiness.")
@click.option("--timeout", default=3.0, type=click.FloatRange(min=0, min_open=True),
              show_default=True, help="Seconds to wait for the answer.")
@click.option("--http", "http", is_flag=True,
              help="Check an HTTP server (the run viewer): GET /healthz must answer 200.")
def health(address: str, service: str, timeout: float, http: bool) -> None:
    """Exit 0 if the server at ADDRESS answers SERVING, else print why and exit 1."""
    if http:
        _http_health(address, "/healthz", timeout)
        return
    try:
        with grpc.insecure_channel(address) as channel:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=service), timeout=timeout)
    except grpc.RpcError as error:
        click.echo(f"{address}: {error.code().name}: {error.details()}", err=True)
        sys.exit(1)
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    if reply.status != health_pb2.HealthCheckResponse.SERVING:
        click.echo(f"{address}: {status}", err=True)
        sys.exit(1)
    click.echo(f"{address}: {status}")


def _http_health(address: str, path: str, timeout: float) -> None:
    url = f"http://{address}{path}"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as reply:
            status = reply.status
    except (OSError, urllib.error.URLError) as error:
        click.echo(f"{url}: {error}", err=True)
        sys.exit(1)
    if status != 200:
        click.echo(f"{url}: HTTP {status}", err=True)
        sys.exit(1)
    click.echo(f"{url}: HTTP 200")


if __name__ == "__main__":
    health(prog_name="python -m lats.health")
