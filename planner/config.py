"""Effective search settings: the request's SearchConfig over the environment's
search hints over the paper's defaults."""

from __future__ import annotations

from lats_pb import environment_pb2 as env_pb
from lats_pb import planner_pb2 as pb

from planner.lats import DEFAULT_ITERATIONS, DEFAULT_MAX_DEPTH, DEFAULT_N_SAMPLES, LatsConfig

MAX_N_SAMPLES = 64
MAX_ITERATIONS = 10_000
MAX_DEPTH = 1_000


class ConfigError(ValueError):
    """A SearchConfig value is out of range (the message says which and why)."""


def effective_config(request: pb.SearchConfig, hints: env_pb.SearchHints) -> LatsConfig:
    """Merges request > hints > defaults and validates ranges."""
    method = request.method or "lats"
    if method != "lats":
        raise ConfigError(f"unknown method {method!r}; this planner supports: lats")
    n = request.n_samples or hints.n_samples or DEFAULT_N_SAMPLES
    k = request.iterations or hints.iterations or DEFAULT_ITERATIONS
    d = request.max_depth or hints.max_depth or DEFAULT_MAX_DEPTH
    w = request.exploration_weight if request.HasField("exploration_weight") else 1.0
    lam = (request.value_weight if request.HasField("value_weight")
           else hints.value_weight if hints.HasField("value_weight") else 0.5)
    simulate = request.simulate if request.HasField("simulate") else (
        hints.simulate if hints.ByteSize() else True)
    if not 1 <= n <= MAX_N_SAMPLES:
        raise ConfigError(f"n_samples must be 1..{MAX_N_SAMPLES}, got {n}")
    if not 1 <= k <= MAX_ITERATIONS:
        raise ConfigError(f"iterations must be 1..{MAX_ITERATIONS}, got {k}")
    if not 1 <= d <= MAX_DEPTH:
        raise ConfigError(f"max_depth must be 1..{MAX_DEPTH}, got {d}")
    if w < 0:
        raise ConfigError(f"exploration_weight must be >= 0, got {w}")
    if not 0.0 <= lam <= 1.0:
        raise ConfigError(f"value_weight (lambda) must be in [0, 1], got {lam}")
    if not 0.0 <= request.temperature <= 2.0:
        raise ConfigError(f"temperature must be in [0, 2], got {request.temperature}")
    return LatsConfig(
        n_samples=n, iterations=k, max_depth=d, exploration_weight=w, value_weight=lam,
        reflection=request.reflection if request.HasField("reflection") else True,
        simulate=simulate, temperature=request.temperature or 1.0, seed=request.seed,
        max_reflections=request.max_reflections or 3,
        value_samples=request.value_samples or 1,
        root_samples=hints.root_samples,
        reflect_each_failure=hints.reflect_each_failure,
        reward_in_value=hints.reward_in_value,
    )


def to_proto(config: LatsConfig, request: pb.SearchConfig) -> pb.SearchConfig:
    """The effective config as reported in results (every figure names it)."""
    return pb.SearchConfig(
        method="lats", n_samples=config.n_samples, iterations=config.iterations,
        max_depth=config.max_depth, exploration_weight=config.exploration_weight,
        value_weight=config.value_weight, reflection=config.reflection,
        simulate=config.simulate, temperature=config.temperature, seed=config.seed,
        model=request.model, max_reflections=config.max_reflections,
        budget=request.budget, value_samples=config.value_samples,
    )
