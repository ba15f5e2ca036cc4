"""CoT and CoT-SC: whole transcripts, stepped without feedback; majority answer."""

from tests.methods.fakes import CallModel, PathEnv, description, run_method

STEPS = "Step {step}: {action}\nObs: {observation}\n"


def desc():
    return description(step_template=STEPS, act_template="ACT {task}\n{trajectory}Step {step}:")


def transcript(*actions: str) -> str:
    parts = [f" {actions[0]}\nObs: guessed"]
    parts += [f"\nStep {i}: {a}\nObs: guessed" for i, a in enumerate(actions[1:], start=2)]
    return "".join(parts) + "\n"


def test_cot_writes_the_whole_trajectory_in_one_call_and_the_env_only_checks_it():
    model = CallModel(lambda purpose, prompt, params: [transcript("a", "b", "win", "extra")])
    env = PathEnv()
    search, outcome, _ = run_method("cot", env, model, desc=desc())
    assert model.purposes() == ["cot"] and model.calls[0][2].stop == ()
    assert model.calls[0][2].temperature == 0.0
    assert [state + (action,) for _, state, action in env.step_log] == [
        ("a",), ("a", "b"), ("a", "b", "win")]            # stops at the terminal state
    assert outcome.status == "solved" and outcome.iterations == 1
    assert search.nodes_expanded == 3


def test_cot_never_shows_an_observation_to_the_model():
    model = CallModel(lambda purpose, prompt, params: [transcript("a", "lose")])
    _, outcome, _ = run_method("cot", PathEnv(), model, desc=desc())
    assert len(model.calls) == 1 and "at a" not in model.calls[0][1]
    assert outcome.status == "failed" and outcome.answer.action == "lose"


def test_cot_sc_takes_the_majority_answer_even_when_a_minority_one_is_right():
    texts = [transcript("x", "lose"), transcript("win"), transcript("y", "lose")]
    model = CallModel(lambda purpose, prompt, params: texts[:params.n])
    search, outcome, _ = run_method("cot_sc", PathEnv(), model, desc=desc(),
                                    iterations=3, n_samples=3)
    assert outcome.status == "failed"
    assert [n.action for n in outcome.answer.trajectory()] == ["x", "lose"]  # earliest majority
    assert len(search.root.children) == 3


def test_cot_sc_samples_k_transcripts_n_per_call_with_distinct_seeds():
    texts = iter([transcript("win"), transcript("win"), transcript("a", "lose"),
                  transcript("win"), transcript("b", "lose")])
    model = CallModel(lambda purpose, prompt, params: [next(texts) for _ in range(params.n)])
    _, outcome, _ = run_method("cot_sc", PathEnv(), model, desc=desc(), iterations=5, n_samples=2)
    assert [c[2].n for c in model.calls] == [2, 2, 1]
    assert len({c[2].seed for c in model.calls}) == 3
    assert outcome.status == "solved" and outcome.iterations == 5


def test_cot_sc_votes_only_among_valid_terminal_answers():
    texts = [transcript("bad"), transcript("bad"), transcript("win")]
    model = CallModel(lambda purpose, prompt, params: texts[:params.n])
    _, outcome, _ = run_method("cot_sc", PathEnv(), model, desc=desc(), iterations=3, n_samples=3)
    assert outcome.status == "solved"


def test_cot_sc_votes_among_the_transcripts_it_got_when_the_budget_runs_out():
    model = CallModel(lambda purpose, prompt, params: [transcript("win")] * params.n, max_calls=1)
    _, outcome, _ = run_method("cot_sc", PathEnv(), model, desc=desc(), iterations=6, n_samples=2)
    assert outcome.status == "solved" and outcome.iterations == 2
    assert "budget" in outcome.reason


def test_a_transcript_that_stops_short_is_continued_without_observations():
    replies = iter([transcript("a"), " b\n", " win\n"])
    model = CallModel(lambda purpose, prompt, params: [next(replies)])
    env = PathEnv()
    _, outcome, _ = run_method("cot", env, model, desc=desc())
    assert outcome.status == "solved" and model.purposes() == ["cot"] * 3
    assert [action for _, _, action in env.step_log] == ["a", "b", "win"]
    second, third = model.prompts("cot")[1:]
    assert second.endswith("Step 1: a\nObs: \nStep 2:")           # blank, not "at a"
    assert "at a" not in third and "Step 2: b\nObs: \nStep 3:" in third


def test_continuations_stop_at_the_depth_limit_and_on_an_empty_reply():
    model = CallModel(lambda purpose, prompt, params: [" go\n"])
    _, outcome, _ = run_method("cot", PathEnv(), model, desc=desc(), max_depth=3)
    assert len(model.calls) == 3 and outcome.answer.depth == 3
    replies = iter([transcript("a"), "  "])
    model = CallModel(lambda purpose, prompt, params: [next(replies)])
    _, outcome, _ = run_method("cot", PathEnv(), model, desc=desc())
    assert len(model.calls) == 2 and outcome.answer.action == "a"


def program_desc():
    """A full-program domain: every action is a complete attempt, and a failed
    attempt ("a", "b", ...) is not a terminal state."""
    d = desc()
    d.prompt_pack.search_hints.reflect_each_failure = True
    return d


def test_cot_in_a_full_program_domain_is_one_attempt_even_when_it_fails():
    model = CallModel(lambda purpose, prompt, params: [transcript("a", "b", "win")])
    env = PathEnv()
    search, outcome, _ = run_method("cot", env, model, desc=program_desc(), max_depth=8)
    assert model.purposes() == ["cot"]                        # no blind continuation
    assert [action for _, _, action in env.step_log] == ["a"]   # only the attempt is stepped
    assert outcome.status == "failed" and outcome.iterations == 1
    assert outcome.answer.action == "a" and search.nodes_expanded == 1


def test_cot_in_a_multi_step_domain_continues_blind_until_a_terminal_state():
    replies = iter([transcript("a"), " b\nObs: guessed\n", " win\n"])
    model = CallModel(lambda purpose, prompt, params: [next(replies)])
    env = PathEnv()
    _, outcome, _ = run_method("cot", env, model, desc=desc(), max_depth=8)
    assert model.purposes() == ["cot"] * 3
    assert [action for _, _, action in env.step_log] == ["a", "b", "win"]
    assert outcome.status == "solved"


def test_cot_sc_in_a_full_program_domain_is_k_independent_attempts_with_a_vote():
    programs = iter(["a", "b", "a", "c", "win"])
    model = CallModel(lambda purpose, prompt, params: [transcript(next(programs), "zzz")
                                                       for _ in range(params.n)])
    env = PathEnv()
    search, outcome, _ = run_method("cot_sc", env, model, desc=program_desc(), iterations=5,
                                    n_samples=2, max_depth=8)
    assert [c[2].n for c in model.calls] == [2, 2, 1]         # k attempts, nothing more
    assert [n.action for n in search.root.children] == ["a", "b", "a", "c", "win"]
    assert all(not n.children for n in search.root.children)   # each attempt on its own
    # a passing attempt is a valid terminal state, so it alone votes
    assert outcome.answer.action == "win" and outcome.status == "solved"


def test_cot_reads_complete_answer_actions_from_the_environments_facts():
    d = desc()
    d.facts.complete_answer_actions = True           # no search hint at all
    model = CallModel(lambda purpose, prompt, params: [transcript("a", "b", "win")])
    env = PathEnv()
    _, outcome, _ = run_method("cot", env, model, desc=d, max_depth=8)
    assert model.purposes() == ["cot"] and [a for _, _, a in env.step_log] == ["a"]
