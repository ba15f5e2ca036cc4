"""Prometheus metrics every LATS process shares, and the HTTP endpoint that serves them.

Server side (recorded by `lats_runtime.observing` for every RPC, named as in
go-grpc-prometheus so existing dashboards apply):
  grpc_server_started_total{grpc_type, grpc_service, grpc_method}
  grpc_server_handled_total{grpc_type, grpc_service, grpc_method, grpc_code}
  grpc_server_handling_seconds{grpc_type, grpc_service, grpc_method, grpc_code}  histogram
  grpc_server_in_flight{grpc_type, grpc_service, grpc_method}
Client side (recorded by `lats_runtime.calls` for every attempt):
  lats_client_calls_total{service, method, code}
  lats_client_call_seconds{service, method}  histogram
  lats_client_retries_total{service, method}
Each service adds its own (planner.metrics, llm_gateway.metrics,
env_servers.core.metrics, the code runner's sandbox metrics).

`start_metrics_server(host, port)` serves them all at /metrics in a thread of
its own, so a scrape never waits for the event loop.
"""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass
from wsgiref.simple_server import WSGIRequestHandler, make_server

from prometheus_client import Counter, Gauge, Histogram, make_wsgi_app
from prometheus_client.exposition import ThreadingWSGIServer

# Model calls on a CPU take minutes and searches longer: buckets up to an hour.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                   10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0)

_RPC = ("grpc_type", "grpc_service", "grpc_method")
RPC_STARTED = Counter("grpc_server_started_total", "RPCs started on the server.", _RPC)
RPC_HANDLED = Counter("grpc_server_handled_total", "RPCs completed on the server, by status.",
                      (*_RPC, "grpc_code"))
RPC_SECONDS = Histogram("grpc_server_handling_seconds",
                        "Time from an RPC's start to its status, by status.",
                        (*_RPC, "grpc_code"), buckets=LATENCY_BUCKETS)
RPC_IN_FLIGHT = Gauge("grpc_server_in_flight", "RPCs being handled now.", _RPC)

_CALL = ("service", "method")
CLIENT_CALLS = Counter("lats_client_calls_total",
                       "Call attempts this process made to other services, by status.",
                       (*_CALL, "code"))
CLIENT_SECONDS = Histogram("lats_client_call_seconds",
                           "Duration of call attempts to other services.", _CALL,
                           buckets=LATENCY_BUCKETS)
CLIENT_RETRIES = Counter("lats_client_retries_total",
                         "Call attempts repeated after a transient failure.", _CALL)


@dataclass
class MetricsServer:
    """A running /metrics endpoint: its port, and a way to stop it."""

    host: str
    port: int
    _server: object

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/metrics"

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


METRICS_PATH = "/metrics"


def metrics_only(app):
    """`app` at /metrics; every other path is 404 naming the one that serves."""

    def serve(environ, start_response):
        if environ.get("PATH_INFO", "") != METRICS_PATH:
            start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8")])
            return [f"not found: the metrics are at {METRICS_PATH}\n".encode()]
        return app(environ, start_response)

    return serve


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 -- scrapes are not worth a log line
        pass


def start_metrics_server(host: str, port: int) -> MetricsServer:
    """Serves this process's metrics at http://HOST:PORT/metrics, and only there (port 0:
    any free one), from a daemon thread."""
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    server_class = type("MetricsHTTPServer", (ThreadingWSGIServer,), {"address_family": family})
    server = make_server(host, port, metrics_only(make_wsgi_app()), server_class, _QuietHandler)
    threading.Thread(target=server.serve_forever, name="metrics", daemon=True).start()
    return MetricsServer(host, server.server_port, server)
