"""Method specs and the job plan of a bench."""

import pytest

from lats.method_comparison.variants import MethodVariant, job_key, plan_jobs


def test_a_spec_names_a_method_and_its_switches():
    variant = MethodVariant.parse("lats:lambda=1, reflection=off,lm_value=no,n=3")
    assert variant.method == "lats"
    assert variant.label == "lats:lambda=1, reflection=off,lm_value=no,n=3"
    assert dict(variant.overrides) == {"value_weight": 1.0, "reflection": False,
                                       "lm_value": False, "n_samples": 3}
    assert MethodVariant.parse("reflexion").overrides == ()


@pytest.mark.parametrize("spec, message", [
    ("mcts", "unknown method 'mcts'.*lats, lats_paper"),
    ("lats:alpha=1", "bad option 'alpha=1'.*KEY in n, k, d, w, lambda"),
    ("lats:lambda", "bad option 'lambda'"),
    ("lats:reflection=maybe", "reflection=maybe.*not on/off"),
    ("lats:n=two", "n=two"),
])
def test_bad_specs_say_what_is_allowed(spec, message):
    with pytest.raises(ValueError, match=message):
        MethodVariant.parse(spec)


def test_the_plan_is_tasks_by_variants_by_k_by_budget_without_duplicates():
    variants = [MethodVariant.parse(s) for s in ("lats", "lats:k=7", "react", "reflexion")]
    jobs = plan_jobs(["t1", "t2"], variants, {"n_samples": 2, "max_depth": None, "seed": 0},
                     ks=[1, 5], max_calls=[0, 30], max_tokens=1000)
    by_task = [j for j in jobs if j.task_id == "t1"]
    # lats: 2 k x 2 budgets; lats:k=7 wins over the sweep: 2 budgets; react fixes k: 2 budgets
    assert [(j.label, j.config.get("iterations"), j.config["budget"]["max_calls"])
            for j in by_task] == [
        ("lats", 1, 0), ("lats", 1, 30), ("lats", 5, 0), ("lats", 5, 30),
        ("lats:k=7", 7, 0), ("lats:k=7", 7, 30), ("react", None, 0), ("react", None, 30),
        ("reflexion", 1, 0), ("reflexion", 1, 30), ("reflexion", 5, 0), ("reflexion", 5, 30)]
    assert len(jobs) == 2 * len(by_task) and len({j.key for j in jobs}) == len(jobs)
    react = by_task[6]
    assert "n_samples" not in react.config        # fixed by the method: left out
    assert "max_depth" not in react.config        # unset: the environment's hint applies
    config = by_task[0].search_config()
    assert (config.method, config.iterations, config.n_samples) == ("lats", 1, 2)
    assert (config.budget.max_calls, config.budget.max_total_tokens) == (0, 1000)


def test_job_keys_are_stable_and_depend_on_task_label_and_config():
    config = {"method": "lats", "iterations": 3}
    assert job_key("t", "lats", config) == job_key("t", "lats", dict(reversed(config.items())))
    assert len({job_key("t", "lats", config), job_key("u", "lats", config),
                job_key("t", "lats:n=2", config),
                job_key("t", "lats", {**config, "iterations": 4})}) == 4


def test_list_methods_prints_every_method_and_switch():
    from click.testing import CliRunner

    from lats.method_comparison.cli import bench
    from planner.methods import METHODS

    result = CliRunner().invoke(bench, ["--list-methods"])
    assert result.exit_code == 0
    assert [line.split()[0] for line in result.output.splitlines()[:len(METHODS)]] == list(METHODS)
    assert "lm_value" in result.output.splitlines()[-1]
