"""`lats health ADDRESS`: exit 0 when a LATS server's health service answers SERVING.

For container health checks (compose's `healthcheck`): any LATS server, any
service name (default "", the server as a whole).
"""

from __future__ import annotations

import sys

import click
import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


@click.command("health")
@click.argument("address", default="127.0.0.1:50051")
@click.option("--service", default="", help="Service to ask about ('' = the whole server).")
@click.option("--timeout", default=3.0, type=click.FloatRange(min=0, min_open=True),
              show_default=True, help="Seconds to wait for the answer.")
def health(address: str, service: str, timeout: float) -> None:
    """Exit 0 if the server at ADDRESS answers SERVING, else print why and exit 1."""
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


if __name__ == "__main__":
    health(prog_name="python -m lats.health")
