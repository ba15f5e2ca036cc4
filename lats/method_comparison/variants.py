"""What a bench runs: method variants x budgets x tasks, as jobs with stable keys.

A method variant is written NAME[:KEY=VALUE,...], e.g. "lats", "lats:lambda=1",
"lats:reflection=off,lm_value=off", "react_bok:temperature=0.7". KEY is one of
OPTION_FIELDS; the variant's label is the spec as written, and every table row
is named by it. A job's key is a digest of the task and the full request
config, so a resumed bench recognises the jobs it already finished.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lats_pb import llm_pb2
from lats_pb import planner_pb2 as pb

from planner.methods import METHODS


def _flag(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in {"1", "true", "on", "yes"}:
        return True
    if lowered in {"0", "false", "off", "no"}:
        return False
    raise ValueError(f"{text!r} is not on/off")


OPTION_FIELDS = {
    "n": ("n_samples", int),
    "k": ("iterations", int),
    "d": ("max_depth", int),
    "w": ("exploration_weight", float),
    "lambda": ("value_weight", float),
    "reflection": ("reflection", _flag),
    "lm_value": ("lm_value", _flag),
    "simulate": ("simulate", _flag),
    "temperature": ("temperature", float),
    "value_samples": ("value_samples", int),
    "max_reflections": ("max_reflections", int),
    "greedy": ("greedy_first", _flag),
    "answer": ("answer_rule", str),
    "dedup": ("dedup", _flag),
    "stop": ("stop_class_size", int),
    "beta": ("agreement_weight", float),
    "lazy": ("lazy_reflection", _flag),
    "widen": ("widening", float),
    "gate": ("greedy_gate", _flag),
    "branch": ("branching", str),
    "wider": ("wider_prior", float),
    "deeper": ("deeper_prior", float),
    "prior_weight": ("prior_strength", float),
    "tiebreak": ("tie_break", _flag),
    "refine_all": ("refine_every_failure", _flag),
    "loops": ("prune_loops", _flag),
}


@dataclass(frozen=True)
class MethodVariant:
    label: str                                  # the spec as written
    method: str
    overrides: tuple[tuple[str, object], ...]   # SearchConfig field -> value

    @classmethod
    def parse(cls, spec: str) -> MethodVariant:
        """Parses NAME[:KEY=VALUE,...]; ValueError says what is wrong and what is allowed."""
        spec = spec.strip()
        name, _, options = spec.partition(":")
        if name not in METHODS:
            raise ValueError(f"unknown method {name!r} in {spec!r}; choose one of "
                             f"{', '.join(METHODS)}")
        overrides = []
        for item in filter(None, (part.strip() for part in options.split(","))):
            key, sep, value = item.partition("=")
            if not sep or key.strip() not in OPTION_FIELDS:
                raise ValueError(f"bad option {item!r} in {spec!r}; use KEY=VALUE with KEY in "
                                 f"{', '.join(OPTION_FIELDS)}")
            field, parse = OPTION_FIELDS[key.strip()]
            try:
                overrides.append((field, parse(value)))
            except ValueError as exc:
                raise ValueError(f"bad value in {spec!r}: {key}={value} ({exc})") from None
        return cls(label=spec, method=name, overrides=tuple(overrides))


@dataclass(frozen=True)
class Job:
    key: str
    task_id: str
    label: str
    config: dict          # SearchConfig fields as JSON ("budget": {max_calls, max_total_tokens})

    def search_config(self) -> pb.SearchConfig:
        fields = dict(self.config)
        budget = fields.pop("budget", None) or {}
        return pb.SearchConfig(**fields, budget=llm_pb2.Budget(**budget))


def job_key(task_id: str, label: str, config: dict) -> str:
    canonical = json.dumps({"task": task_id, "label": label, "config": config},
                           sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:20]


def plan_jobs(tasks: Sequence[str], variants: Sequence[MethodVariant], base: dict,
              ks: Iterable[int | None] = (None,), max_calls: Iterable[int] = (0,),
              max_tokens: int = 0) -> list[Job]:
    """Every (task, variant, k, call budget), in that nesting order, without duplicates.

    `base` holds SearchConfig fields shared by all jobs (n, d, seed, model ...);
    a variant's own options win over `base` and over the k sweep. Settings the
    method fixes (e.g. k = 1 for react and cot) are left out, so a k sweep runs
    such a method once.
    """
    jobs: dict[str, Job] = {}
    ks, max_calls = list(ks) or [None], list(max_calls) or [0]
    for task in tasks:
        for variant in variants:
            for k in ks:
                for calls in max_calls:
                    config = {key: value for key, value in base.items() if value not in (None, "")}
                    if k:
                        config["iterations"] = k
                    config.update(variant.overrides)
                    for name in METHODS[variant.method].fixed:   # the method ignores them
                        config.pop(name, None)
                    config["method"] = variant.method
                    config["budget"] = {"max_calls": calls, "max_total_tokens": max_tokens}
                    key = job_key(task, variant.label, config)
                    jobs.setdefault(key, Job(key, task, variant.label, config))
    return list(jobs.values())
