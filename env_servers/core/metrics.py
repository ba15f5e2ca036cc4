"""An environment server's Prometheus metrics (the RPC metrics come from lats_runtime).

  lats_env_sessions_open{environment}           sessions open now
  lats_env_steps_total{environment, outcome}    steps taken (Step and Transition alike);
                                                outcome: ok, invalid_action or terminated
  lats_env_step_seconds{environment}            histogram, the domain's time for one step
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

from lats_runtime.metrics import LATENCY_BUCKETS

SESSIONS_OPEN = Gauge("lats_env_sessions_open", "Sessions open on this server.",
                      ("environment",))
STEPS = Counter("lats_env_steps_total", "Steps taken, by outcome.", ("environment", "outcome"))
STEP_SECONDS = Histogram("lats_env_step_seconds", "The domain's time for one step.",
                         ("environment",), buckets=LATENCY_BUCKETS)


def step_outcome(invalid_action: bool, terminated: bool) -> str:
    if invalid_action:
        return "invalid_action"
    return "terminated" if terminated else "ok"
