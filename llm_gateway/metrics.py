"""The gateway's Prometheus metrics: model calls, tokens and latency per model.

  lats_model_calls_total{backend, model, outcome}   outcome: ok or the gRPC status name
  lats_model_tokens_total{backend, model, kind}     kind: prompt or completion
  lats_model_call_seconds{backend, model}           histogram, backend time of a call
  lats_model_calls_in_flight{backend}

The model label is what the backend reports it served (or the backend's
configured model), never a name taken from a request, so clients cannot grow
the label set.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

from lats_runtime.metrics import LATENCY_BUCKETS

MODEL_CALLS = Counter("lats_model_calls_total", "Model calls served, by outcome.",
                      ("backend", "model", "outcome"))
MODEL_TOKENS = Counter("lats_model_tokens_total", "Tokens of served model calls.",
                       ("backend", "model", "kind"))
MODEL_SECONDS = Histogram("lats_model_call_seconds", "Backend time of a model call.",
                          ("backend", "model"), buckets=LATENCY_BUCKETS)
MODEL_IN_FLIGHT = Gauge("lats_model_calls_in_flight", "Model calls running in the backend.",
                        ("backend",))


def record_call(backend: str, model: str, outcome: str, seconds: float,
                prompt_tokens: int = 0, completion_tokens: int = 0) -> None:
    """Counts one finished model call."""
    MODEL_CALLS.labels(backend, model, outcome).inc()
    MODEL_SECONDS.labels(backend, model).observe(seconds)
    if prompt_tokens:
        MODEL_TOKENS.labels(backend, model, "prompt").inc(prompt_tokens)
    if completion_tokens:
        MODEL_TOKENS.labels(backend, model, "completion").inc(completion_tokens)
