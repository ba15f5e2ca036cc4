"""ReAct, ReAct best-of-k and Reflexion against the in-process PathEnv."""

import pytest

from tests.methods.fakes import CallModel, PathEnv, description, run_method, traj


def test_react_steps_one_greedy_trajectory_with_feedback_and_no_value_calls():
    def answer(purpose, prompt, params):
        return {"": ["a"], "[a]": ["b"], "[a][b]": ["win"]}[traj(prompt)]

    model = CallModel(answer)
    search, outcome, events = run_method("react", PathEnv(), model, iterations=5)
    assert outcome.status == "solved" and outcome.iterations == 1
    assert [n.action for n in outcome.answer.trajectory()] == ["a", "b", "win"]
    assert model.purposes() == ["act"] * 3
    assert {(c[2].n, c[2].temperature) for c in model.calls} == {(1, 0.0)}
    assert search.nodes_expanded == 3 and outcome.score.success
    assert [n.id for (n,) in events.of("node_added")] == ["0.0", "0.0.0", "0.0.0.0"]


def test_react_stops_at_the_depth_limit():
    model = CallModel(lambda purpose, prompt, params: ["go"])
    _, outcome, _ = run_method("react", PathEnv(), model, max_depth=3)
    assert outcome.status == "failed" and len(model.calls) == 3
    assert outcome.answer is not None and outcome.answer.depth == 3


def test_best_of_k_samples_fresh_trajectories_until_one_succeeds():
    seeds = []

    def answer(purpose, prompt, params):
        if traj(prompt) == "":
            seeds.append(params.seed)
            return ["lose"] if len(seeds) < 3 else ["win"]
        raise AssertionError("every trajectory is one step")

    model = CallModel(answer)
    search, outcome, events = run_method("react_bok", PathEnv(), model, iterations=5)
    assert outcome.status == "solved" and outcome.iterations == 3
    assert len(set(seeds)) == 3, "each trajectory samples with its own seed"
    assert [c.action for c in search.root.children] == ["lose", "lose", "win"]
    assert [args[0] for args in events.of("iteration")] == [1, 2, 3]
    assert {c[2].temperature for c in model.calls} == {1.0}


def test_best_of_k_in_honest_mode_runs_all_k_and_never_claims_success():
    model = CallModel(lambda purpose, prompt, params: ["win"])
    _, outcome, _ = run_method("react_bok", PathEnv(), model,
                               desc=description(reward_mode="honest"), iterations=3)
    assert outcome.iterations == 3 and len(model.calls) == 3
    assert outcome.status == "failed"          # only Score may tell
    assert outcome.score.success               # ...and it does


def test_reflexion_reflects_after_a_failed_trial_and_retries_with_the_lesson():
    def answer(purpose, prompt, params):
        if purpose == "reflect":
            return ["avoid lose"]
        return ["win"] if "<avoid lose>" in prompt else ["lose"]

    model = CallModel(answer)
    search, outcome, events = run_method("reflexion", PathEnv(), model, iterations=4)
    assert outcome.status == "solved" and outcome.iterations == 2
    assert model.purposes() == ["act", "reflect", "act"]
    assert search.reflections == ["avoid lose"]
    assert events.of("reflection")[0][0].action == "lose"
    assert outcome.answer.action == "win" and outcome.answer.parent is search.root


def test_reflexion_shows_at_most_three_reflections_and_none_after_the_last_trial():
    count = iter(range(100))

    def answer(purpose, prompt, params):
        return [f"lesson{next(count)}"] if purpose == "reflect" else ["lose"]

    model = CallModel(answer)
    search, outcome, _ = run_method("reflexion", PathEnv(), model, iterations=6)
    assert outcome.status == "failed" and outcome.iterations == 6
    assert model.purposes().count("reflect") == 5          # not after trial 6
    last_act = model.prompts("act")[-1]
    assert "lesson0" not in last_act and "lesson1" not in last_act
    assert all(f"<lesson{i}>" in last_act for i in (2, 3, 4))


def test_reflexion_cuts_a_trial_that_repeats_the_same_action():
    def answer(purpose, prompt, params):
        if purpose == "reflect":
            return ["stop repeating"]
        return ["win"] if "stop repeating" in prompt else ["go"]

    model = CallModel(answer)
    _, outcome, events = run_method("reflexion", PathEnv(), model, iterations=2, max_depth=10)
    reflected_on = events.of("reflection")[0][0]
    assert reflected_on.depth == 3 and reflected_on.action == "go"   # 3 times, not 10
    assert outcome.status == "solved"


def test_reflexion_without_reflection_retries_without_memory():
    model = CallModel(lambda purpose, prompt, params: ["lose"])
    search, outcome, _ = run_method("reflexion", PathEnv(), model, iterations=3, reflection=False)
    assert model.purposes() == ["act"] * 3 and search.reflections == []


@pytest.mark.parametrize("method", ["react", "react_bok", "reflexion"])
def test_an_empty_action_ends_the_trajectory_without_stepping(method):
    env = PathEnv()
    _, outcome, _ = run_method(method, env, CallModel(lambda purpose, prompt, params: ["  "]),
                               iterations=2, reflection=False)
    assert env.step_log == [] and outcome.status == "failed" and outcome.answer is None


def program_desc():
    desc = description(step_template="[{action}|{reflection}]")
    desc.prompt_pack.search_hints.reflect_each_failure = True
    return desc


def test_reflexion_in_a_full_program_domain_reflects_on_each_attempt_in_one_branch():
    def answer(purpose, prompt, params):
        if purpose == "reflect":
            return ["fix-" + traj(prompt)]
        return ["win"] if "[a|fix-[a|]]" in prompt else ["a"]

    model = CallModel(answer)
    search, outcome, _ = run_method("reflexion", PathEnv(), model, desc=program_desc(),
                                    iterations=5)
    assert outcome.status == "solved" and outcome.iterations == 2
    assert [n.action for n in outcome.answer.trajectory()] == ["a", "win"]
    assert outcome.answer.parent.reflection == "fix-[a|]"   # attached to the failed attempt
    assert search.reflections == [] and model.purposes() == ["act", "reflect", "act"]


def test_reflexion_samples_a_repeated_attempt_again_and_spends_its_k_attempts():
    def answer(purpose, prompt, params):
        if purpose == "reflect":
            return ["lesson"]
        return ["a"] if params.temperature == 0 else [f"p{params.seed % 1000}"]

    model = CallModel(answer)
    search, outcome, _ = run_method("reflexion", PathEnv(), model, desc=program_desc(),
                                    iterations=4)
    attempts = [n.action for n in search.root.walk() if n is not search.root]
    assert outcome.status == "failed" and outcome.iterations == 4
    assert outcome.reason == "4 attempts without success"
    assert len(attempts) == 4 and len(set(attempts)) == 4 and attempts[0] == "a"
    # each repeat of the greedy "a" is sampled again once, with temperature
    acts = [params for purpose, _, params in model.calls if purpose == "act"]
    assert [p.temperature for p in acts] == [0.0] + [0.0, 1.0] * 3
    assert len({p.seed for p in acts}) == len(acts)
    assert model.purposes().count("reflect") == 3          # none after the last attempt


def test_reflexion_ends_early_only_when_the_model_keeps_repeating_an_attempt():
    model = CallModel(lambda purpose, prompt, params: ["lesson"] if purpose == "reflect" else ["a"])
    search, outcome, _ = run_method("reflexion", PathEnv(), model, desc=program_desc(),
                                    iterations=6)
    assert outcome.status == "failed" and outcome.iterations == 2
    assert outcome.reason == "attempt 2 repeated an earlier one 4 times"
    assert model.purposes() == ["act", "reflect"] + ["act"] * 4
    assert [n.action for n in search.root.walk() if n is not search.root] == ["a"]


def test_a_resampled_attempt_can_pass():
    def answer(purpose, prompt, params):
        if purpose == "reflect":
            return ["lesson"]
        return ["a"] if params.temperature == 0 else ["win"]

    _, outcome, _ = run_method("reflexion", PathEnv(), CallModel(answer), desc=program_desc(),
                               iterations=3)
    assert outcome.status == "solved" and outcome.reason == "attempt 2 passed"


def test_reflexion_attempts_are_bounded_by_k_and_d():
    model = CallModel(lambda purpose, prompt, params: ["r"] if purpose == "reflect"
                      else [f"v{len(model.calls)}"])
    _, outcome, _ = run_method("reflexion", PathEnv(), model, desc=program_desc(), iterations=3)
    assert model.purposes() == ["act", "reflect", "act", "reflect", "act"]
    model.calls.clear()
    _, outcome, _ = run_method("reflexion", PathEnv(), model, desc=program_desc(), iterations=9,
                               max_depth=2)
    assert model.purposes().count("act") == 2 and "ended after 2" in outcome.reason
