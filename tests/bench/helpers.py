"""Records built the way the bench builds them (from a RunResult)."""

from __future__ import annotations

from lats_pb import environment_pb2 as env_pb
from lats_pb import planner_pb2 as pb
from lats_runtime.reward_modes import to_wire

from lats.method_comparison.records import error_record, record_from_result
from lats.method_comparison.variants import MethodVariant, plan_jobs


def job(task="t1", spec="lats", k=5, max_calls=0):
    return plan_jobs([task], [MethodVariant.parse(spec)], {"n_samples": 2}, [k], [max_calls])[0]


def record(task="t1", spec="lats", k=5, solved=True, calls=10, prompt=100, completion=20,
           expanded=4, iterations=3, wall=1.5, metrics=None, mode="none", max_calls=0,
           model="local:qwen", scored=True):
    the_job = job(task, spec, k, max_calls)
    result = pb.RunResult(
        status=pb.RUN_STATUS_SOLVED if solved else pb.RUN_STATUS_FAILED,
        actions=["a", "Answer: x"], iterations=iterations, nodes_expanded=expanded, nodes=9,
        wall_seconds=wall, reward_mode=to_wire(mode), model=model, environment="game24@1.0.0",
        task_id=task, scored=scored,
        config=pb.SearchConfig(method=the_job.config["method"], n_samples=2, iterations=k,
                               max_depth=4, exploration_weight=1.0, value_weight=0.5,
                               reflection=True, lm_value=True))
    if scored:
        result.score.CopyFrom(env_pb.ScoreResponse(score=1.0 if solved else 0.25, success=solved,
                                               metrics=metrics or {"solved": float(solved)}))
    result.usage.calls, result.usage.prompt_tokens = calls, prompt
    result.usage.completion_tokens = completion
    return record_from_result(the_job, result, run_id=f"run-{task}", session=1)


def failed_job(task="t1", spec="lats", k=5, message="INVALID_ARGUMENT: bad"):
    return error_record(job(task, spec, k), message, session=1)
