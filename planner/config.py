"""Effective search settings, merged in layers (later wins):

  the paper's defaults < the environment's search hints < the method's
  defaults < the request's SearchConfig < the method's fixed settings

A request field counts as set when it is non-zero (or, for optional fields,
present). planner.methods.registry holds each method's defaults and fixed
settings; the result reports the effective values.
"""

from __future__ import annotations

from lats_pb import environment_pb2 as env_pb
from lats_pb import planner_pb2 as pb

from planner.methods.registry import MethodSpec, UnknownMethod, method_spec
from planner.search_config import (ANSWER_RULES, BRANCHINGS, DEFAULT_ITERATIONS,
                                   DEFAULT_MAX_DEPTH, DEFAULT_N_SAMPLES, LatsConfig)

MAX_N_SAMPLES = 64
MAX_ITERATIONS = 10_000
MAX_DEPTH = 1_000
MAX_PARALLEL = 64
MAX_EXPLORATION_WEIGHT = 1_000.0
MAX_REFLECTIONS = 1_000
MAX_STOP_CLASS_SIZE = 64
MAX_PRIOR_STRENGTH = 1_000.0

PAPER_DEFAULTS = dict(
    n_samples=DEFAULT_N_SAMPLES, iterations=DEFAULT_ITERATIONS, max_depth=DEFAULT_MAX_DEPTH,
    exploration_weight=1.0, value_weight=0.5, reflection=True, simulate=True,
    temperature=1.0, max_reflections=3, value_samples=1, lm_value=True, parallel=1,
    greedy_first=False, answer_rule="value", dedup=False, stop_class_size=1,
    agreement_weight=0.0, lazy_reflection=False, widening=0.0, greedy_gate=False,
    branching="uct", wider_prior=0.5, deeper_prior=0.5, prior_strength=1.0, tie_break=False,
    prune_loops=False,
)


class ConfigError(ValueError):
    """A SearchConfig value is out of range (the message says which and why)."""


def resolve_method(request: pb.SearchConfig) -> MethodSpec:
    """The request's method ("" = lats); ConfigError if unknown."""
    try:
        return method_spec(request.method)
    except UnknownMethod as exc:
        raise ConfigError(str(exc)) from None


def _hinted(hints: env_pb.SearchHints) -> dict:
    values: dict = dict(root_samples=hints.root_samples,
                        complete_answer_actions=hints.reflect_each_failure,
                        reward_in_value=hints.reward_in_value)
    for name in ("n_samples", "iterations", "max_depth", "stop_class_size"):
        if getattr(hints, name):
            values[name] = getattr(hints, name)
    for name in ("value_weight", "temperature", "reflection", "widening", "wider_prior",
                 "deeper_prior", "prior_strength", "prune_loops"):
        if hints.HasField(name):
            values[name] = getattr(hints, name)
    if hints.ByteSize():
        values["simulate"] = hints.simulate
    values["unrefined_failures"] = tuple(hints.unrefined_failures)
    return values


def _requested(request: pb.SearchConfig) -> dict:
    values: dict = {"seed": request.seed}
    for name in ("n_samples", "iterations", "max_depth", "temperature", "max_reflections",
                 "value_samples", "parallel", "answer_rule", "stop_class_size", "branching"):
        if getattr(request, name):
            values[name] = getattr(request, name)
    for name in ("exploration_weight", "value_weight", "reflection", "simulate", "lm_value",
                 "greedy_first", "dedup", "agreement_weight", "lazy_reflection", "widening",
                 "greedy_gate", "wider_prior", "deeper_prior", "prior_strength", "tie_break",
                 "refine_every_failure", "prune_loops"):
        if request.HasField(name):
            values[name] = getattr(request, name)
    return values


def effective_config(request: pb.SearchConfig, hints: env_pb.SearchHints,
                     paper_hints: env_pb.SearchHints | None = None) -> LatsConfig:
    """Merges the layers for the request's method and validates ranges. A paper-faithful
    method takes the environment's `paper_hints` (the pack's paper_search_hints) when set."""
    spec = resolve_method(request)
    if spec.paper and paper_hints is not None and paper_hints.ByteSize():
        hints = paper_hints
    merged = {**PAPER_DEFAULTS, **_hinted(hints), **spec.defaults, **_requested(request),
              **spec.fixed}
    if merged.pop("refine_every_failure", False):
        merged["unrefined_failures"] = ()
    n, k, d = merged["n_samples"], merged["iterations"], merged["max_depth"]
    if not 1 <= n <= MAX_N_SAMPLES:
        raise ConfigError(f"n_samples must be 1..{MAX_N_SAMPLES}, got {n}")
    if not 1 <= k <= MAX_ITERATIONS:
        raise ConfigError(f"iterations must be 1..{MAX_ITERATIONS}, got {k}")
    if not 1 <= d <= MAX_DEPTH:
        raise ConfigError(f"max_depth must be 1..{MAX_DEPTH}, got {d}")
    if not 1 <= merged["parallel"] <= MAX_PARALLEL:
        raise ConfigError(f"parallel must be 1..{MAX_PARALLEL}, got {merged['parallel']}")
    if not 0 <= merged["exploration_weight"] <= MAX_EXPLORATION_WEIGHT:
        raise ConfigError(f"exploration_weight must be in [0, {MAX_EXPLORATION_WEIGHT:g}], "
                          f"got {merged['exploration_weight']}")
    if not 1 <= merged["value_samples"] <= MAX_N_SAMPLES:
        raise ConfigError(f"value_samples must be 1..{MAX_N_SAMPLES}, got {merged['value_samples']}")
    if not 0 <= merged["max_reflections"] <= MAX_REFLECTIONS:
        raise ConfigError(f"max_reflections must be 0..{MAX_REFLECTIONS}, "
                          f"got {merged['max_reflections']}")
    if not 0.0 <= merged["value_weight"] <= 1.0:
        raise ConfigError(f"value_weight (lambda) must be in [0, 1], got {merged['value_weight']}")
    if not 0.0 <= merged["temperature"] <= 2.0:
        raise ConfigError(f"temperature must be in [0, 2], got {merged['temperature']}")
    if merged["answer_rule"] not in ANSWER_RULES:
        raise ConfigError(f"answer_rule must be one of {', '.join(ANSWER_RULES)}, "
                          f"got {merged['answer_rule']!r}")
    if not 1 <= merged["stop_class_size"] <= MAX_STOP_CLASS_SIZE:
        raise ConfigError(f"stop_class_size must be 1..{MAX_STOP_CLASS_SIZE}, "
                          f"got {merged['stop_class_size']}")
    if not 0.0 <= merged["widening"] <= 1.0:
        raise ConfigError(f"widening (alpha) must be in [0, 1] (0 = off), got {merged['widening']}")
    if merged["branching"] not in BRANCHINGS:
        raise ConfigError(f"branching must be one of {', '.join(BRANCHINGS)}, "
                          f"got {merged['branching']!r}")
    for name in ("wider_prior", "deeper_prior"):
        if not 0.0 <= merged[name] <= 1.0:
            raise ConfigError(f"{name} is a Beta mean and must be in [0, 1], got {merged[name]}")
    if not 0.0 < merged["prior_strength"] <= MAX_PRIOR_STRENGTH:
        raise ConfigError(f"prior_strength must be in (0, {MAX_PRIOR_STRENGTH:g}], "
                          f"got {merged['prior_strength']}")
    if not 0.0 <= merged["agreement_weight"] <= 1.0:
        raise ConfigError(f"agreement_weight (beta) must be in [0, 1], "
                          f"got {merged['agreement_weight']}")
    return LatsConfig(**merged)


def to_proto(config: LatsConfig, request: pb.SearchConfig) -> pb.SearchConfig:
    """The effective config as reported in results (every figure names it)."""
    return pb.SearchConfig(
        method=request.method or "lats", n_samples=config.n_samples,
        iterations=config.iterations, max_depth=config.max_depth,
        exploration_weight=config.exploration_weight, value_weight=config.value_weight,
        reflection=config.reflection, simulate=config.simulate,
        temperature=config.temperature, seed=config.seed, model=request.model,
        max_reflections=config.max_reflections, budget=request.budget,
        value_samples=config.value_samples, lm_value=config.lm_value,
        parallel=config.parallel, greedy_first=config.greedy_first,
        answer_rule=config.answer_rule, dedup=config.dedup,
        stop_class_size=config.stop_class_size, agreement_weight=config.agreement_weight,
        lazy_reflection=config.lazy_reflection, widening=config.widening,
        greedy_gate=config.greedy_gate, branching=config.branching,
        wider_prior=config.wider_prior, deeper_prior=config.deeper_prior,
        prior_strength=config.prior_strength, tie_break=config.tie_break,
        refine_every_failure=request.refine_every_failure, prune_loops=config.prune_loops,
    )
