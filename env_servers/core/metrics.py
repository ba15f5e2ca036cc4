"""An environment server's Prometheus metrics (the RPC metrics come from lats_runtime).

  lats_env_steps_total{environment, outcome}    steps taken (each action of a Step, and
                                                each re-played action of a replay);
                                                outcome: ok, invalid_action or terminated
  lats_env_step_seconds{environment}            histogram, the domain's time for one step
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram

from lats_runtime.metrics import LATENCY_BUCKETS

STEPS = Counter("lats_env_steps_total", "Steps taken, by outcome.", ("environment", "outcome"))
STEP_SECONDS = Histogram("lats_env_step_seconds", "The domain's time for one step.",
                         ("environment",), buckets=LATENCY_BUCKETS)


def step_outcome(invalid_action: bool, terminated: bool) -> str:
    if invalid_action:
        return "invalid_action"
    return "terminated" if terminated else "ok"
