"""The LATS search (planner.mcts.Mcts over planner.context) against in-process fakes, including the official code's pitfalls."""

import asyncio
import copy

import pytest

from planner.environment_client import TaskRef
from planner.events import EventSink
from planner.search_config import LatsConfig
from planner.methods import method_spec

from tests.planner.fakes import PathEnv, RuleModel, description


class Recorder(EventSink):
    def __init__(self):
        self.events = []

    def __getattribute__(self, name):
        if name in {"started", "iteration", "selected", "node_added", "node_evaluated",
                    "terminal", "reflection", "backpropagated"}:
            # copy nodes: the tree keeps changing after an event is emitted
            return lambda *args: self.events.append((name, tuple(
                copy.copy(a) if hasattr(a, "visits") else a for a in args)))
        return object.__getattribute__(self, name)

    def of(self, kind):
        return [args for name, args in self.events if name == kind]


def run(env, model, config=LatsConfig(), desc=None):
    events = Recorder()
    search = method_spec("lats_paper").search(env, desc or env.description, model, config,
                                        TaskRef(task_id="t"), events)
    outcome = asyncio.run(asyncio.wait_for(search.run(), 10))
    return search, outcome, events


def traj(prompt: str) -> str:
    return prompt.split("traj=")[1].split(" ")[0]


def test_each_child_gets_its_own_value_not_a_value_by_index():
    # Pitfall: the official code assigned values computed for the non-terminal
    # children by index to *all* children, so they landed on the wrong nodes.
    scores = {"[x]": 9, "[y]": 2, "[z]": 5}

    def answer(purpose, prompt, n):
        if purpose == "act":
            return (["lose", "x", "y", "z"] * n)[:n] if traj(prompt) == "" else ["lose"] * n
        if purpose == "value":
            return [f"score is {scores[traj(prompt)]}"] * n
        return ["r"] * n

    search, _, _ = run(PathEnv(), RuleModel(answer), LatsConfig(n_samples=4, iterations=1,
                                                                 reflection=False))
    by_action = {c.action: c for c in search.root.children}
    assert by_action["lose"].terminal and by_action["lose"].lm_score == -1.0
    assert by_action["x"].lm_score == pytest.approx(8 / 9)
    assert by_action["y"].lm_score == pytest.approx(1 / 9)
    assert by_action["z"].lm_score == pytest.approx(4 / 9)


def test_search_ends_when_every_root_child_is_a_failed_terminal():
    # Pitfall: the official loop could spin forever in this case.
    model = RuleModel(lambda purpose, prompt, n: ["lose"] * n if purpose == "act" else ["r"] * n)
    search, outcome, _ = run(PathEnv(), model, LatsConfig(n_samples=3, iterations=50))
    assert outcome.status == "failed"
    assert "exhausted" in outcome.reason
    assert outcome.iterations == 1
    assert search.root.exhausted


def test_self_consistency_is_the_share_of_identical_samples():
    # Pitfall: the official code never implemented the SC term.
    def answer(purpose, prompt, n):
        if purpose == "act":
            return ["x", " x ", "y", "x", "y"] if traj(prompt) == "" else ["lose"] * n
        return ["score is 1"] * n  # LM says 0 for everyone

    search, _, events = run(PathEnv(), RuleModel(answer),
                            LatsConfig(n_samples=5, iterations=1, value_weight=0.5, reflection=False))
    x, y = (args[0] for args in events.of("node_evaluated")[:2])
    assert (x.action, x.sample_count, x.sc_score) == ("x", 3, pytest.approx(0.6))
    assert (y.action, y.sample_count, y.sc_score) == ("y", 2, pytest.approx(0.4))
    assert x.value == pytest.approx(0.5 * 0.0 + 0.5 * 0.6)
    assert y.value == pytest.approx(0.5 * 0.0 + 0.5 * 0.4)


def test_lambda_one_ignores_self_consistency():
    def answer(purpose, prompt, n):
        if purpose == "act":
            return ["x", "x", "y"] if traj(prompt) == "" else ["lose"] * n
        return ["score is 10"] * n

    _, _, events = run(PathEnv(), RuleModel(answer),
                       LatsConfig(n_samples=3, iterations=1, value_weight=1.0, reflection=False))
    evaluated = [args[0] for args in events.of("node_evaluated")[:2]]
    assert [c.value for c in evaluated] == [pytest.approx(1.0), pytest.approx(1.0)]


def test_success_reward_is_backpropagated_to_the_root():
    # Pitfall: one official domain never backpropagated the success reward.
    def answer(purpose, prompt, n):
        if purpose == "act":
            return ["a"] * n if traj(prompt) == "" else ["win"] * n
        return ["score is 5"] * n

    search, outcome, events = run(PathEnv(), RuleModel(answer), LatsConfig(n_samples=2))
    assert outcome.status == "solved"
    assert [n.action for n in outcome.answer.trajectory()] == ["a", "win"]
    leaf_id, reward, path = events.of("backpropagated")[-1]
    assert reward == 1.0 and [n.id for n in path] == ["0", "0.0", "0.0.0"]
    assert search.root.visits == 2 and search.root.value == pytest.approx(0.5)
    a = search.root.children[0]
    v_eval = 0.5 * (4 / 9) + 0.5 * 1.0   # lambda*LM + (1-lambda)*SC, SC = 2/2
    assert a.visits == 2 and a.value == pytest.approx((v_eval + 1.0) / 2)
    assert outcome.score.success  # the answer was verified by Score after the search


def test_every_branch_steps_from_its_parents_own_state():
    # Pitfall: one shared environment served every branch in the official code.
    def answer(purpose, prompt, n):
        if purpose == "act":
            return ["p", "q", "r"] if traj(prompt) == "" else ["lose"] * n
        return ["score is 5"] * n

    env = PathEnv()
    search, _, _ = run(env, RuleModel(answer), LatsConfig(n_samples=3, iterations=1,
                                                          reflection=False))
    root_steps = [(call, before, action) for call, before, action in env.step_log
                  if before == ()]
    assert sorted(a for _, _, a in root_steps) == ["p", "q", "r"]
    obs = {c.action: c.observation for c in search.root.children}
    assert obs == {"p": "at p", "q": "at q", "r": "at r"}    # no sibling saw another's step
    p = next(c for c in search.root.children if c.action == "p")
    assert [before for _, before, _ in env.step_log if before and before[0] == "p"] == [("p",)]
    assert p.children and p.children[0].observation == "lost"


def test_an_expansion_is_one_transition_for_all_its_children():
    def answer(purpose, prompt, n):
        if purpose == "act":
            return ["p", "q", "r", "s"] if traj(prompt) == "" else ["lose"] * n
        return ["score is 5"] * n

    env = PathEnv(step_delay=0.05)
    search, _, _ = run(env, RuleModel(answer), LatsConfig(n_samples=4, iterations=1,
                                                          reflection=False))
    root_calls = {call for call, before, _ in env.step_log if before == ()}
    assert len(root_calls) == 1 and len(search.root.children) == 4
    assert env.transitions == search.nodes_expanded


def test_failed_rollout_is_reflected_and_the_reflection_reaches_later_prompts():
    def answer(purpose, prompt, n):
        if purpose == "act":
            if traj(prompt) == "":
                return ["a", "b"][:n]
            return ["lose"] * n if traj(prompt) == "[a]" else ["win"] * n
        if purpose == "value":
            return ["score is 9" if traj(prompt).startswith("[a]") else "score is 3"] * n
        return ["avoid a"]

    model = RuleModel(answer)
    search, outcome, events = run(PathEnv(), model, LatsConfig(n_samples=2, iterations=5,
                                                               exploration_weight=0.0))
    assert outcome.status == "solved"
    assert events.of("reflection")[0][1] == "avoid a"
    assert search.reflections == ["avoid a"]
    later_acts = [p for purpose, p in model.prompts if purpose == "act" and "<avoid a>" in p]
    assert later_acts, "the reflection must be shown in later act prompts"


def test_invalid_actions_get_zero_value_without_a_model_call():
    def answer(purpose, prompt, n):
        if purpose == "act":
            return ["bad", "x"] if traj(prompt) == "" else ["lose"] * n
        assert "[bad]" not in prompt
        return ["score is 10"] * n

    search, _, _ = run(PathEnv(), RuleModel(answer), LatsConfig(n_samples=2, iterations=1,
                                                                reflection=False))
    bad = search.root.children[0]
    assert bad.invalid_action and bad.value == 0.0


def test_depth_limit_ends_a_rollout_with_reward_zero():
    model = RuleModel(lambda purpose, prompt, n: ["go"] * n if purpose == "act"
                      else ["score is 10"] * n if purpose == "value" else ["too deep"])
    search, outcome, events = run(PathEnv(), model, LatsConfig(n_samples=1, iterations=1,
                                                               max_depth=3))
    leaf_id, reward, path = events.of("backpropagated")[0]
    assert reward == 0.0 and len(path) == 4
    assert events.of("reflection")
    assert outcome.status == "failed"


def test_budget_exhaustion_stops_the_search_gracefully():
    model = RuleModel(lambda purpose, prompt, n: ["go"] * n if purpose == "act"
                      else ["score is 5"] * n, max_calls=3)
    _, outcome, _ = run(PathEnv(), model, LatsConfig(n_samples=1, iterations=20, max_depth=50))
    assert outcome.status == "failed" and "budget" in outcome.reason


def test_honest_mode_does_not_stop_on_an_environment_reward():
    def answer(purpose, prompt, n):
        if purpose == "act":
            return ["win"] * n
        return ["score is 4"] * n

    env = PathEnv()
    _, outcome, _ = run(env, RuleModel(answer), LatsConfig(n_samples=1, iterations=3),
                        desc=description(reward_mode="honest"))
    assert outcome.status == "failed"          # no early stop on hidden truth
    assert outcome.answer.lm_score == pytest.approx(3 / 9)   # terminal valued by the model


def test_reward_in_value_replaces_self_consistency():
    def answer(purpose, prompt, n):
        return ["x"] * n if purpose == "act" else ["score is 10"] * n

    env = PathEnv()
    _, _, events = run(env, RuleModel(answer),
                       LatsConfig(n_samples=2, iterations=1, max_depth=1, value_weight=0.8,
                                  reward_in_value=True, reflection=False))
    child = events.of("node_evaluated")[0][0]
    assert child.sc_score == 1.0 and child.reward == 0.0
    assert child.value == pytest.approx(0.8 * 1.0 + 0.2 * 0.0)   # reward, not SC


def test_root_samples_limits_the_first_expansion():
    model = RuleModel(lambda purpose, prompt, n: [f"a{i}" for i in range(n)] if purpose == "act"
                      else ["score is 5"] * n)
    search, _, _ = run(PathEnv(), model, LatsConfig(n_samples=4, iterations=1, max_depth=2,
                                                    root_samples=1, reflection=False))
    assert len(search.root.children) == 1
    assert len(search.root.children[0].children) == 4


def test_complete_answer_actions_attach_reflections_to_their_branch():
    def answer(purpose, prompt, n):
        if purpose == "act":
            return ["p", "q"] if traj(prompt) == "" else ["r"] * n
        if purpose == "reflect":
            return ["fix " + traj(prompt)]
        return ["score is 5"] * n

    model = RuleModel(answer)
    search, _, events = run(PathEnv(), model, LatsConfig(
        n_samples=2, iterations=3, max_depth=3, simulate=False, complete_answer_actions=True),
        desc=description(step_template="[{action}|{reflection}]"))
    p, q = search.root.children
    assert p.reflection == "fix [p|]" and q.reflection == "fix [q|]"
    assert len(events.of("reflection")) >= 2 and search.reflections == []
    deeper = [prompt for purpose, prompt in model.prompts if purpose == "act" and "traj=[" in prompt]
    on_p = [prompt for prompt in deeper if "[p|fix [p|]]" in prompt]
    on_q = [prompt for prompt in deeper if "[q|fix [q|]]" in prompt]
    assert (on_p or on_q) and len(on_p) + len(on_q) == len(deeper)
    assert not any("fix [q" in prompt for prompt in on_p)   # no sibling's reflection
    assert not any("fix [p" in prompt for prompt in on_q)


def test_setup_and_reflection_use_the_packs_stop_sequences():
    seen = {}

    class StopRecorder(RuleModel):
        async def complete(self, messages, params):
            seen.setdefault(params.purpose, params.stop)
            return await super().complete(messages, params)

    model = StopRecorder(lambda purpose, prompt, n: ["lose"] * n if purpose == "act"
                         else ["tests"] if purpose == "setup" else ["r"] * n)
    desc = description(setup_template="SETUP {task}", setup_option_key="tests",
                       setup_stop=["```"], reflect_stop=["\n[attempt"])
    run(PathEnv(), model, LatsConfig(n_samples=1, iterations=1), desc=desc)
    assert seen["setup"] == ("```",) and seen["reflect"] == ("\n[attempt",)


def test_fallback_search_runs_the_second_environment_with_the_first_ones_reflections():
    def answer(purpose, prompt, n):
        if purpose == "act":
            return ["win"] * n if "lesson" in prompt else ["lose"] * n
        return ["lesson"] if purpose == "reflect" else ["score is 5"] * n

    first, second = PathEnv(), PathEnv()
    events = Recorder()
    search = method_spec("lats_fallback").search(
        first, first.description, RuleModel(answer), LatsConfig(n_samples=1, iterations=1),
        TaskRef(task_id="t"), events, fallback_env=second)
    outcome = asyncio.run(asyncio.wait_for(search.run(), 10))
    assert outcome.status == "solved" and outcome.iterations == 2
    assert [s for s, _, _ in first.step_log] and [s for s, _, _ in second.step_log]
    assert [n.action for n in outcome.answer.trajectory()] == ["win"]
    assert len(events.of("started")) == 2 and search.nodes_expanded == 2
