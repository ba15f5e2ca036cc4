"""ToT DFS (and LATS (DFS)) with value pruning, and ToT BFS with a beam of k."""

from tests.methods.fakes import CallModel, PathEnv, run_method, traj

# A tree in PathEnv: actions per state, and the LM's 1..10 score of each state.
TREE = {"": ["good", "poor", "fine"], "[good]": ["dead", "lose"], "[fine]": ["lose", "win"],
        "[good][dead]": ["lose"]}
SCORE = {"[good]": 9, "[poor]": 2, "[fine]": 6, "[good][dead]": 5}


def tree_model(reflections=None):
    def answer(purpose, prompt, params):
        if purpose == "act":
            return (TREE.get(traj(prompt), ["lose"]) * params.n)[:params.n]
        if purpose == "value":
            return [f"score is {SCORE[traj(prompt)]}"] * params.n
        (reflections if reflections is not None else []).append(traj(prompt))
        return ["lesson"]
    return CallModel(answer)


def expanded(model):
    return [traj(p) for p in model.prompts("act")]


def test_tot_dfs_visits_best_first_prunes_low_values_and_backtracks():
    model = tree_model()
    search, outcome, events = run_method("tot_dfs", PathEnv(), model, n_samples=3, iterations=5,
                                         max_depth=5)
    assert outcome.status == "solved"
    assert [n.action for n in outcome.answer.trajectory()] == ["fine", "win"]
    # good (0.89) first, its dead end, then fine (0.56); poor (0.11) is pruned.
    assert expanded(model) == ["", "[good]", "[good][dead]", "[fine]"]
    assert "reflect" not in model.purposes()          # ToT has no reflection
    assert outcome.iterations == 2                     # one failed path, then the solution
    assert [args[0] for args in events.of("iteration")] == [1, 2]


def test_k_bounds_the_trajectories_of_dfs():
    model = tree_model()
    _, outcome, _ = run_method("tot_dfs", PathEnv(), model, n_samples=3, iterations=1, max_depth=5)
    assert outcome.status == "failed" and "k=1" in outcome.reason
    assert expanded(model) == ["", "[good]", "[good][dead]"]


def test_lats_dfs_reflects_on_each_failed_path_and_uses_the_combined_value():
    reflected = []
    model = tree_model(reflected)
    search, outcome, _ = run_method("lats_dfs", PathEnv(), model, n_samples=3, iterations=5,
                                    max_depth=5)
    assert outcome.status == "solved"
    assert reflected == ["[good][dead][lose]"]        # the failed path's end
    good = search.root.children[0]
    assert good.value == 0.5 * (8 / 9) + 0.5 * (1 / 3)   # lambda*LM + (1-lambda)*SC
    assert "<lesson>" in model.prompts("act")[-1]


def test_tot_bfs_keeps_the_k_best_states_per_depth():
    model = tree_model()
    _, outcome, _ = run_method("tot_bfs", PathEnv(), model, n_samples=3, iterations=1, max_depth=4)
    # beam 1: only good survives depth 1, then its only non-terminal child
    assert expanded(model) == ["", "[good]", "[good][dead]"]
    assert outcome.status == "failed" and "no state left" in outcome.reason

    model = tree_model()
    _, outcome, _ = run_method("tot_bfs", PathEnv(), model, n_samples=3, iterations=2, max_depth=4)
    assert expanded(model) == ["", "[good]", "[fine]"]  # beam 2: good and fine, then win
    assert outcome.status == "solved" and outcome.iterations == 2


def test_tot_bfs_stops_at_the_depth_limit():
    model = CallModel(lambda purpose, prompt, params: ["go"] * params.n if purpose == "act"
                      else ["score is 5"] * params.n)
    _, outcome, _ = run_method("tot_bfs", PathEnv(), model, n_samples=2, iterations=3, max_depth=3)
    assert outcome.iterations == 3 and "depth limit" in outcome.reason
    assert model.purposes().count("act") == 3
