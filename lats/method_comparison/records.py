"""A finished bench job as one flat, JSON-able record.

Every table and plot is computed from these records only, so a summary can
always be checked against the stored rows. Fields:

  job_key task_id label method          what ran (label = the variant spec)
  environment reward_mode model         every figure names its mode and model
  n k d w lambda reflection lm_value    the effective search settings (as run)
  max_calls max_tokens                  the model budget (0 = none)
  requested                             the request's SearchConfig fields
  status                                "solved" | "failed" | "error"
  success score metrics scored          the environment's hidden-ground-truth Score
                                        (success falls back to status when unscored)
  calls prompt_tokens completion_tokens model usage of the run
  cached_prompt_tokens                  of the prompt tokens, those the backend's prompt
                                        cache served
  calls_by_kind                         the calls by kind: act:root, act:deeper, value,
                                        reflect, cot, setup
  iterations nodes_expanded nodes wall_seconds
  actions final_observation error run_id session finished_at
  answer_node_id greedy_node_id         the answer's node, and the greedy first attempt's
  answer_reason                         why the answer was chosen (answer_rule agreement)
  value_parse_failures repeats_merged   value completions the pattern missed; merged repeats
  programs                              programming environments only: every program the
                                        search sampled, as [action, samples] in the order
                                        the tree gained them (samples: how many of the
                                        search's samples gave it, its repeats included)
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from lats_pb import planner_pb2 as pb
from lats_runtime.reward_modes import name_of
from lats_runtime.run_status import RunStatus, from_wire

from lats.method_comparison.variants import Job

# A finished run's record is solved or failed; any other status counts as an error.
_RECORDED = (RunStatus.SOLVED, RunStatus.FAILED)


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _base(job: Job, session: int) -> dict:
    budget = job.config.get("budget") or {}
    return {
        "job_key": job.key, "task_id": job.task_id, "label": job.label,
        "method": job.config.get("method", "lats"), "requested": job.config,
        "max_calls": budget.get("max_calls", 0), "max_tokens": budget.get("max_total_tokens", 0),
        "session": session, "finished_at": _now(),
    }


# Environments whose every action is a whole program: their records keep the programs.
PROGRAMMING_ENVIRONMENTS = ("coderunner",)


def sampled_programs(nodes: Iterable) -> list[list]:
    """[action, samples] for every node below the root (lats_client Nodes, in the order
    the tree gained them): samples counts the search's samples that gave the node's
    program, its own and the repeats merged into it (planner.tree.Node.votes)."""
    return [[node.action, max(node.sample_count, 1) + node.repeats]
            for node in nodes if node.parent_id]


def record_from_result(job: Job, result: pb.RunResult, run_id: str, session: int,
                       nodes: Iterable = ()) -> dict:
    """The record of a run that reached its `finished` event (`nodes`: its tree, as
    the stream showed it)."""
    config = result.config
    status = from_wire(result.status)
    if status not in _RECORDED:
        status = RunStatus.ERROR
    success = result.score.success if result.scored else status is RunStatus.SOLVED
    programming = result.environment.split("@")[0] in PROGRAMMING_ENVIRONMENTS
    return {
        **_base(job, session),
        "environment": result.environment, "reward_mode": name_of(result.reward_mode),
        "model": result.model,
        "n": config.n_samples, "k": config.iterations, "d": config.max_depth,
        "w": round(config.exploration_weight, 6), "lambda": round(config.value_weight, 6),
        "reflection": config.reflection, "lm_value": config.lm_value,
        "status": status, "success": bool(success) and status is not RunStatus.ERROR,
        "scored": result.scored, "score": result.score.score if result.scored else None,
        "metrics": dict(result.score.metrics) if result.scored else {},
        "calls": result.usage.calls, "prompt_tokens": result.usage.prompt_tokens,
        "completion_tokens": result.usage.completion_tokens,
        "cached_prompt_tokens": result.usage.cached_prompt_tokens,
        "calls_by_kind": dict(result.calls_by_kind),
        "iterations": result.iterations, "nodes_expanded": result.nodes_expanded,
        "nodes": result.nodes, "wall_seconds": round(result.wall_seconds, 3),
        "actions": list(result.actions), "final_observation": result.final_observation,
        "error": result.error, "reason": result.stop_reason or result.error,
        "run_id": run_id,
        "answer_node_id": result.answer_node_id, "greedy_node_id": result.greedy_node_id,
        "answer_reason": result.answer_reason,
        "value_parse_failures": result.value_parse_failures,
        "repeats_merged": result.repeats_merged,
        **({"programs": sampled_programs(nodes)} if programming else {}),
    }


def error_record(job: Job, message: str, session: int, run_id: str = "") -> dict:
    """The record of a job the planner refused or lost (no result)."""
    requested = job.config
    return {
        **_base(job, session),
        "environment": "", "reward_mode": "", "model": requested.get("model", ""),
        "n": requested.get("n_samples", 0), "k": requested.get("iterations", 0),
        "d": requested.get("max_depth", 0), "w": requested.get("exploration_weight"),
        "lambda": requested.get("value_weight"), "reflection": requested.get("reflection"),
        "lm_value": requested.get("lm_value"),
        "status": RunStatus.ERROR, "success": False, "scored": False, "score": None, "metrics": {},
        "calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cached_prompt_tokens": 0,
        "iterations": 0,
        "nodes_expanded": 0, "nodes": 0, "wall_seconds": 0.0, "actions": [],
        "final_observation": "", "error": message, "reason": message, "run_id": run_id,
    }
