"""The planner's Prometheus metrics (its RPC metrics come from lats_runtime).

  lats_searches_in_flight{method}            searches running on this planner
  lats_searches_total{method, status}        finished searches, by run status
  lats_search_seconds{method}                histogram, wall time of a search
  lats_search_nodes_total{method}            tree nodes the searches built
  lats_run_watchers                          WatchRun streams open now
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

from lats_runtime.metrics import LATENCY_BUCKETS

SEARCHES_IN_FLIGHT = Gauge("lats_searches_in_flight", "Searches running on this planner.",
                           ("method",))
SEARCHES = Counter("lats_searches_total", "Finished searches, by run status.",
                   ("method", "status"))
SEARCH_SECONDS = Histogram("lats_search_seconds", "Wall time of a search.", ("method",),
                           buckets=LATENCY_BUCKETS)
SEARCH_NODES = Counter("lats_search_nodes_total", "Tree nodes built by searches.", ("method",))
WATCHERS = Gauge("lats_run_watchers", "WatchRun streams open on this planner.")
