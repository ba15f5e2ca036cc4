"""What `lats` adds to the paper's algorithm, on a full-program environment with
answer keys: CoT's greedy attempt first, repeats merged across the tree, the
agreement answer rule and stop, lazy reflections, invalid over-long or empty
samples, no value calls after a success, value-parse misses counted; and the
best-of-N baseline."""

from __future__ import annotations

import json

from lats_pb import environment_pb2 as env_pb

from planner.environment import EnvState, Stepped

from tests.methods.fakes import CallModel, WholeProgramEnv, run_method

# program -> (share of the visible tests passed, answer key); unknown programs fail
PROGRAMS = {
    "greedy_ok": (1.0, "A"), "same_as_greedy": (1.0, "A"), "other_ok": (1.0, "B"),
    "other_ok_2": (1.0, "B"), "half": (0.5, "C"), "half_again": (0.5, "C"),
    "wrong": (0.0, "D"), "fixed": (1.0, "A"),
}


class ProgramEnv(WholeProgramEnv):
    """Every action is a whole program; the step result is the program's verdict."""

    def __init__(self, max_action_bytes: int = 0):
        super().__init__()
        self.description.limits.max_action_bytes = max_action_bytes
        self.description.prompt_pack.act_max_tokens = 300
        self.stepped: list[str] = []
        self.scored: list[str] = []

    async def transition(self, state: EnvState, actions) -> list[Stepped]:
        results = []
        for action in actions:
            self.stepped.append(action)
            share, key = PROGRAMS.get(action, (0.0, "Z:" + action))
            after = EnvState(env_pb.Snapshot(blob=json.dumps(action).encode()))
            results.append(Stepped(f"passed {share:.0%}", share, share == 1.0, False, False,
                                   after, key))
        return results

    async def score(self, state: EnvState):
        program = json.loads(state.snapshot.blob)
        self.scored.append(program)
        return env_pb.ScoreResponse(score=1.0, success=program in ("greedy_ok", "fixed"))


def model_of(greedy: str, samples: list[str], later: list[str] | None = None,
             value: str = "score is 7"):
    """CoT's request answers `greedy`; root samples `samples`; deeper acts `later`."""

    def answer(purpose, prompt, params):
        if purpose == "cot":
            return [greedy] * params.n
        if purpose == "act":
            deeper = prompt.split("traj=")[1].startswith("[")
            pool = (later or ["wrong"]) if deeper else samples
            return (pool * params.n)[:params.n]
        if purpose == "value":
            return [value] * params.n
        return ["a lesson"] * params.n

    return CallModel(answer)


def run(env, model, method="lats", **request):
    request.setdefault("n_samples", 4)
    request.setdefault("iterations", 4)
    return run_method(method, env, model, **request)


def test_the_roots_first_child_is_cots_own_attempt_by_its_very_request():
    env = ProgramEnv()
    cot_model = model_of("greedy_ok", ["x"])
    _, cot_outcome, _ = run_method("cot", ProgramEnv(), cot_model)
    lats_model = model_of("greedy_ok", ["wrong", "wrong", "half"])
    search, outcome, _ = run(env, lats_model, greedy_gate=False)
    cot_call = cot_model.calls[0]
    greedy_call = lats_model.calls[0]
    assert greedy_call[0] == "cot" and greedy_call[1] == cot_call[1]
    assert greedy_call[2] == cot_call[2], "same prompt, stop, token limit, seed, temperature 0"
    assert greedy_call[2].temperature == 0.0 and greedy_call[2].stop == ("]",)
    assert search.root.children[0].action == cot_outcome.answer.action == "greedy_ok"
    act = [params for purpose, _, params in lats_model.calls if purpose == "act"][0]
    assert act.n == 3 and act.temperature == 1.0, "the other n - 1 are sampled"
    assert outcome.answer.action == "greedy_ok" and outcome.status == "solved"


def test_cot_in_a_full_program_domain_stops_where_an_act_completion_stops():
    model = model_of("greedy_ok", [])
    run_method("cot", ProgramEnv(), model)
    (_, _, params), = model.calls
    assert params.stop == ("]",) and params.max_tokens == 300


def test_the_largest_class_of_passing_answers_wins_ties_to_the_greedy_one():
    # (without the greedy gate, which would end these searches at the greedy attempt)
    # greedy A passes alone; B passes twice (two programs, one key): B wins
    search, outcome, _ = run(ProgramEnv(), model_of("greedy_ok", ["other_ok", "other_ok_2",
                                                                  "wrong"]), greedy_gate=False)
    assert outcome.answer.action == "other_ok"
    assert "2 samples" in outcome.answer_reason
    # A: greedy + a different program with A's behaviour; B once: A wins, the greedy node
    search, outcome, _ = run(ProgramEnv(), model_of("greedy_ok", ["same_as_greedy", "other_ok",
                                                                  "wrong"]), greedy_gate=False)
    assert outcome.answer.action == "greedy_ok" and "greedy attempt among them" in \
        outcome.answer_reason
    # one each: the tie goes to the greedy attempt's class
    _, outcome, _ = run(ProgramEnv(), model_of("greedy_ok", ["other_ok", "wrong", "half"]),
                        greedy_gate=False)
    assert outcome.answer.action == "greedy_ok"


def test_when_nothing_passes_the_answer_is_the_greedy_attempt():
    env = ProgramEnv()
    search, outcome, _ = run(env, model_of("half", ["wrong", "half_again", "zzz"]), iterations=3)
    assert outcome.answer is search.root.children[0] and outcome.answer.action == "half"
    assert outcome.status == "failed"
    assert "greedy attempt" in outcome.answer_reason
    assert env.scored == ["half"], "Score is called once, on the answer, after the search"


def test_answer_key_repeats_are_merged_not_scored_again():
    env = ProgramEnv()
    model = model_of("half", ["half_again", "half", "wrong"], later=["fixed"])
    search, outcome, _ = run(env, model, value_weight=0.5, branching="uct")
    root = search.root
    # "half" twice (the greedy one and a sample) is one child; "half_again" gives the
    # same answer key (C), so it is a repeat of it
    assert [c.action for c in root.children] == ["half", "wrong"]
    assert root.children[0].sample_count == 2 and root.children[0].repeats == 1
    assert root.children[0].votes == 3
    assert env.stepped.count("half") == 1, "a text repeat is never stepped again"
    value_prompts = [p for purpose, p, _ in model.calls if purpose == "value"]
    assert len(value_prompts) == 2, "one value call per distinct answer, none for repeats"
    assert outcome.answer.action == "fixed"


def test_a_repeat_of_the_parents_program_deeper_in_the_tree_is_merged():
    env = ProgramEnv()
    model = model_of("half", ["wrong", "wrong", "wrong"], later=["half", "fixed"])
    search, outcome, _ = run(env, model)
    half = search.root.children[0]
    assert [c.action for c in half.children] == ["fixed"]
    assert half.repeats >= 1
    assert outcome.answer.action == "fixed"


def test_the_search_stops_once_a_passing_class_is_big_enough():
    env = ProgramEnv()
    model = model_of("half", ["other_ok", "wrong", "wrong"], later=["other_ok_2"])
    _, outcome, _ = run(env, model, stop_class_size=1)
    assert outcome.iterations == 1 and outcome.answer.action == "other_ok"
    model = model_of("half", ["other_ok", "wrong", "wrong"], later=["other_ok_2", "wrong"])
    search, outcome, _ = run(ProgramEnv(), model, stop_class_size=2)
    assert outcome.iterations == 2 and "class" in outcome.reason
    assert outcome.answer.action == "other_ok"
    assert search.root.children[1].votes >= 2


def test_an_over_long_or_empty_sample_is_an_invalid_child_never_sent():
    env = ProgramEnv(max_action_bytes=12)
    model = model_of("half", ["a_program_far_too_long_to_take", "", "fixed"])
    search, outcome, _ = run(env, model)
    long, empty = search.root.children[1], search.root.children[2]
    assert long.invalid_action and "30 bytes" in long.observation
    assert "limits.max_action_bytes" in long.observation
    assert empty.invalid_action and "no action" in empty.observation
    assert long.exhausted and empty.exhausted
    assert "a_program_far_too_long_to_take" not in env.stepped and "" not in env.stepped
    assert outcome.answer.action == "fixed", "the search went on past the bad samples"


def test_reflections_are_made_when_a_failed_node_is_expanded_not_before():
    env = ProgramEnv()
    model = model_of("half", ["wrong", "zzz", "yyy"], later=["fixed"])
    search, outcome, _ = run(env, model)
    reflected = [p for purpose, p, _ in model.calls if purpose == "reflect"]
    assert len(reflected) == 1, "only the node selected for expansion is reflected on"
    expanded = [n for n in search.root.walk() if n.children and n is not search.root]
    assert [n.reflection for n in expanded] == ["a lesson"]
    _, paper, _ = run(ProgramEnv(), model_of("half", ["wrong", "zzz", "yyy"], later=["fixed"]),
                      method="lats_paper")
    assert paper.answer.action == "fixed"


def test_siblings_of_a_success_get_no_value_call():
    model = model_of("half", ["wrong", "fixed", "zzz"])
    run(ProgramEnv(), model, value_weight=0.5)
    assert [p for p, _, _ in model.calls].count("value") == 0


def test_value_completions_the_pattern_misses_are_counted():
    model = model_of("half", ["wrong", "zzz", "yyy"], later=["fixed"], value="I think 7/10")
    search, outcome, _ = run(ProgramEnv(), model, value_weight=0.5)
    assert search.context.value_parse_failures == 4
    assert outcome.answer.action == "fixed"


def test_best_of_n_samples_rounds_at_the_root_and_chooses_by_agreement():
    model = model_of("half", ["wrong", "zzz", "other_ok"])
    search, outcome, _ = run(ProgramEnv(), model, method="best_of_n", stop_class_size=2,
                             iterations=3)
    assert {p for p, _, _ in model.calls} == {"cot", "act"}, "no value calls, no reflections"
    assert all(child.parent is search.root for child in search.root.children)
    assert outcome.iterations == 2 and outcome.answer.action == "other_ok"
    assert search.root.children[-1].votes >= 2


def test_progressive_widening_draws_the_root_again_as_it_is_visited():
    def model(widening):
        root_draws = []

        def answer(purpose, prompt, params):
            if purpose == "cot":
                return ["half"]
            if purpose == "act" and not prompt.split("traj=")[1].startswith("["):
                root_draws.append(params.seed)
                return ["other_ok" if len(root_draws) > 1 else "wrong"] * params.n
            if purpose == "act":
                return ["zzz"] * params.n
            return ["a lesson"]

        search, outcome, _ = run(ProgramEnv(), CallModel(answer), widening=widening,
                                 iterations=3, branching="uct")
        return search, outcome, root_draws

    search, outcome, draws = model(0.5)
    assert len(draws) == 2 and draws[0] != draws[1], "a second root draw, with a new seed"
    assert outcome.answer.action == "other_ok"
    assert [c.id for c in search.root.children] == ["0.0", "0.1", "0.2"]
    _, without, draws = model(0.0)
    assert len(draws) == 1 and without.answer.action == "half"


def test_with_the_greedy_gate_a_passing_greedy_attempt_ends_the_search_at_cots_cost():
    for method in ("lats", "best_of_n"):
        env = ProgramEnv()
        # two samples would have outvoted it (another passing class of 2)
        model = model_of("greedy_ok", ["other_ok", "other_ok_2", "wrong"])
        search, outcome, _ = run(env, model, method=method, greedy_gate=True)
        assert model.purposes() == ["cot"], f"{method}: no sample drawn, no value call"
        assert outcome.answer.action == "greedy_ok" and outcome.status == "solved"
        assert [c.action for c in search.root.children] == ["greedy_ok"]
        assert env.stepped == ["greedy_ok"]
        _, ungated, _ = run(ProgramEnv(), model_of("greedy_ok", ["other_ok", "other_ok_2",
                                                                  "wrong"]), method=method,
                            greedy_gate=False)
        assert ungated.answer.action == "other_ok", "without the gate the samples outvote it"


def test_with_the_greedy_gate_a_failing_greedy_attempt_searches_as_without_it():
    def search_with(gate):
        env = ProgramEnv()
        model = model_of("half", ["wrong", "half_again", "zzz"], later=["fixed"])
        search, outcome, _ = run(env, model, greedy_gate=gate)
        tree = [(n.id, n.action, n.votes) for n in search.root.walk()]
        acts = [(p.n, p.seed, p.temperature) for purpose, _, p in model.calls if purpose == "act"]
        return tree, acts, outcome.answer.action, env.stepped

    gated, ungated = search_with(True), search_with(False)
    tree, acts, answer, stepped = gated
    assert acts[0][0] == 3 and acts[0][2] == 1.0, "then the other n - 1, sampled"
    assert answer == "fixed"
    assert (tree, acts, answer) == ungated[:3], "the same samples, tree and answer"
    assert stepped[0] == "half" and stepped.count("half") == 1


def test_the_greedy_gate_waits_for_the_class_size_the_search_stops_at():
    model = model_of("greedy_ok", ["same_as_greedy", "other_ok", "wrong"])
    _, outcome, _ = run(ProgramEnv(), model, greedy_gate=True, stop_class_size=2)
    assert [p for p in model.purposes()] == ["cot", "act"], "one passing answer is not 2"
    assert outcome.answer.action == "greedy_ok" and "2 samples" in outcome.answer_reason


def test_the_paper_variant_has_no_greedy_gate():
    model = model_of("greedy_ok", ["wrong"])
    search, _, _ = run(ProgramEnv(), model, method="lats_paper", greedy_gate=True)
    assert "cot" not in model.purposes() and search.context.config.greedy_gate is False


def test_under_the_value_rule_the_gate_ends_at_a_greedy_success_and_only_there():
    model = model_of("greedy_ok", ["other_ok", "wrong", "half"])
    _, outcome, _ = run(ProgramEnv(), model, answer_rule="value")
    assert model.purposes() == ["cot"] and outcome.answer.action == "greedy_ok"
    model = model_of("half", ["wrong", "zzz", "fixed"])
    search, outcome, _ = run(ProgramEnv(), model, answer_rule="value")
    assert model.purposes()[:2] == ["cot", "act"] and outcome.answer.action == "fixed"
    assert [c.action for c in search.root.children][:1] == ["half"]
