"""The code runner's sandbox metrics, recorded around every sandboxed run.

  lats_sandbox_runs_total{sandbox, purpose, status, verdict}
      purpose: step (the internal tests), probe (the answer key's probe inputs)
      or hidden (the hidden tests: Score,
      and steps in oracle mode);
      status: how the program ran (ok, syntax_error, error, timeout, memory,
      crashed); verdict: all_passed or not_all_passed
  lats_sandbox_run_seconds{sandbox, purpose}   histogram, wall time of a run
  lats_sandbox_runs_in_flight{sandbox}

Recorded here, at the domain, so they hold whatever backend runs the code.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

from prometheus_client import Counter, Gauge, Histogram

from lats_runtime.metrics import LATENCY_BUCKETS

SANDBOX_RUNS = Counter("lats_sandbox_runs_total", "Sandboxed program runs, by outcome.",
                       ("sandbox", "purpose", "status", "verdict"))
SANDBOX_SECONDS = Histogram("lats_sandbox_run_seconds", "Wall time of a sandboxed run.",
                            ("sandbox", "purpose"), buckets=LATENCY_BUCKETS)
SANDBOX_IN_FLIGHT = Gauge("lats_sandbox_runs_in_flight", "Sandboxed runs going on now.",
                          ("sandbox",))


class _Outcome:
    status = "crashed"      # until the run reports (an exception leaves it so)
    all_passed = False


@contextlib.contextmanager
def observed_run(sandbox: str, purpose: str) -> Iterator[_Outcome]:
    """Times one run; the caller fills in the yielded outcome's status and all_passed."""
    outcome = _Outcome()
    started = time.perf_counter()
    SANDBOX_IN_FLIGHT.labels(sandbox).inc()
    try:
        yield outcome
    finally:
        SANDBOX_IN_FLIGHT.labels(sandbox).dec()
        SANDBOX_SECONDS.labels(sandbox, purpose).observe(time.perf_counter() - started)
        verdict = "all_passed" if outcome.all_passed else "not_all_passed"
        SANDBOX_RUNS.labels(sandbox, purpose, outcome.status, verdict).inc()
