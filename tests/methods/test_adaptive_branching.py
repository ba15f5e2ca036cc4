"""Adaptive branching (planner.branching): wider or deeper, learnt from the graded
rewards each choice produced; best-of-n as the special case; selection anywhere
in the tree; tree-parallel search; reproducible by seed."""

from __future__ import annotations

import dataclasses
import json
import random

from lats_pb import environment_pb2 as env_pb

from planner.branching import AdaptiveBranching, BetaPrior
from planner.environment import EnvState, Stepped
from planner.tree import Node

from tests.methods.fakes import CallModel, WholeProgramEnv, run_method


class GradedEnv(WholeProgramEnv):
    """Every action is a whole program written `name@share`: it passes `share` of
    the visible tests (terminal at 1.0); its answer key is its name."""

    def __init__(self):
        super().__init__(partial_credit=True, reflection=False)

    async def transition(self, state: EnvState, actions) -> list[Stepped]:
        results = []
        for action in actions:
            name, _, share = action.partition("@")
            reward = float(share or 0)
            after = EnvState(env_pb.Snapshot(blob=json.dumps(action).encode()))
            results.append(Stepped(f"passed {reward:.0%}", reward, reward == 1.0, False, False,
                                   after, name))
        return results

    async def score(self, state: EnvState):
        return env_pb.ScoreResponse(score=0.0, success=False)


def depth_of(prompt: str) -> int:
    """How many attempts the prompt's branch shows (0 at the root)."""
    return prompt.split("traj=")[1].count("[")


class Scripted:
    """Root samples are new programs passing `root_share`; a refinement at depth d
    gives `refine(d, i)` for its i-th sample. Counts draws by depth."""

    def __init__(self, root_share: float, refine):
        self.root_share, self.refine = root_share, refine
        self.draws: list[int] = []
        self.counter = 0

    def __call__(self, purpose, prompt, params):
        if purpose == "cot":
            return [f"greedy@{self.root_share}"] * params.n
        if purpose != "act":
            return ["a lesson"] * params.n
        depth = depth_of(prompt)
        self.draws.append(depth)
        texts = []
        for i in range(params.n):
            self.counter += 1
            texts.append(f"root{self.counter}@{self.root_share}" if depth == 0
                         else self.refine(depth, self.counter))
        return texts


def search(scripted, **request):
    request.setdefault("n_samples", 3)
    request.setdefault("iterations", 16)
    request.setdefault("stop_class_size", 64)
    request.setdefault("max_depth", 8)
    model = CallModel(scripted)
    return run_method("lats", GradedEnv(), model, **request) + (model,)


def test_a_node_whose_refinements_never_pay_stops_being_refined():
    scripted = Scripted(0.3, lambda depth, i: f"worse{i}@0")
    search(scripted)
    refinements = sum(1 for d in scripted.draws if d > 0)
    assert scripted.draws[0] == 0 and refinements <= 4, scripted.draws
    assert scripted.draws[-6:] == [0] * 6, "late draws go to fresh samples"


def test_a_node_whose_refinements_pay_is_refined():
    scripted = Scripted(0.3, lambda depth, i: f"better{i}@{min(0.9, 0.3 + 0.2 * depth)}")
    found, _, _, _ = search(scripted)
    refinements = sum(1 for d in scripted.draws if d > 0)
    assert refinements >= 10, scripted.draws
    assert max(scripted.draws) >= 2, "it refines refinements where that keeps paying"


def test_a_refinement_that_passes_ends_the_search_with_it():
    scripted = Scripted(0.0, lambda depth, i: "fixed@1.0")
    _, outcome, _, _ = search(scripted, stop_class_size=1)
    assert outcome.answer.action == "fixed@1.0" and outcome.answer.depth == 2


def test_best_of_n_is_adaptive_branching_whose_refinements_never_pay():
    def run(method, **extra):
        scripted = Scripted(0.3, lambda depth, i: f"r{i}@0.5")
        model = CallModel(scripted)
        found, outcome, _ = run_method(method, GradedEnv(), model, n_samples=3, iterations=6,
                                       stop_class_size=64, **extra)
        calls = [(p, params.seed, params.n, params.temperature) for p, _, params in model.calls]
        tree = [(n.id, n.action, n.reward) for n in found.root.walk()]
        return calls, tree, outcome.answer.action

    assert run("lats", deeper_prior=0.0) == run("best_of_n")
    assert run("lats") != run("best_of_n"), "with its default priors it does refine"


def test_selection_spans_the_whole_tree():
    root = Node(id="0", visits=1, expanded=True)
    layer = root
    for depth in range(1, 4):                     # a chain of good refinements
        child = Node(id=f"{layer.id}.0", parent=layer, depth=depth, visits=1, expanded=True)
        layer.children.append(child)
        layer = child
    leaf = Node(id=f"{layer.id}.0", parent=layer, depth=4, visits=1)
    layer.children.append(leaf)
    for _ in range(8):
        AdaptiveBranching.observe(layer, 0.9, None)      # draws at depth 3 paid
    for _ in range(8):
        AdaptiveBranching.observe(root, 0.5, None)       # fresh samples paid less
    policy = AdaptiveBranching(BetaPrior(0.5, 1.0), BetaPrior(0.5, 1.0), random.Random(0),
                               lambda node: True)
    chosen = [policy.select(root).depth for _ in range(400)]
    assert chosen.count(0) > 0, "the root still gets a fresh draw now and then"
    assert sum(1 for d in chosen if d >= 3) > 200, "most draws go deep, where it paid"


def test_a_degenerate_deeper_prior_never_leaves_the_root():
    root = Node(id="0", visits=1, expanded=True)
    root.children.append(Node(id="0.0", parent=root, depth=1, visits=1))
    policy = AdaptiveBranching(BetaPrior(0.5, 1.0), BetaPrior(0.0, 1.0), random.Random(1),
                               lambda node: True)
    assert {policy.select(root).id for _ in range(200)} == {"0"}


def test_the_same_seed_grows_the_same_tree_and_another_seed_may_not():
    def tree(seed):
        scripted = Scripted(0.3, lambda depth, i: f"r{i}@0.4")
        found, _, _, _ = search(scripted, seed=seed)
        return [(n.id, n.action) for n in found.root.walk()], scripted.draws

    assert tree(3) == tree(3)
    assert len({str(tree(s)[1]) for s in range(6)}) > 1


def test_tree_parallel_adaptive_search_draws_no_node_twice_at_once():
    scripted = Scripted(0.3, lambda depth, i: f"r{i}@0.5")
    found, outcome, _, _ = search(scripted, parallel=4, iterations=12)
    ids = [n.id for n in found.root.walk()]
    assert len(ids) == len(set(ids))
    assert outcome.iterations == 12 and all(n.virtual_loss == 0 for n in found.root.walk())


class KindedEnv(GradedEnv):
    """GradedEnv whose programs, written `name@share#kind`, fail with `kind`; the
    environment says refining a `raised` failure rarely pays."""

    def __init__(self):
        super().__init__()
        self.description.prompt_pack.search_hints.unrefined_failures.append("raised")

    async def transition(self, state: EnvState, actions) -> list[Stepped]:
        stepped = await super().transition(state, [a.partition("#")[0] for a in actions])
        return [dataclasses.replace(s, failure_kind=a.partition("#")[2])
                for s, a in zip(stepped, actions)]


class KindedScripted(Scripted):
    """Root samples alternate between a raised and a wrong failure."""

    def __call__(self, purpose, prompt, params):
        texts = super().__call__(purpose, prompt, params)
        if purpose == "act" and depth_of(prompt) == 0:
            return [f"{t}#{'raised' if self.counter % 2 else 'wrong'}" if i % 2 == 0 else
                    f"{t}#wrong" for i, t in enumerate(texts)]
        return texts


def kinded_search(**request):
    scripted = KindedScripted(0.3, lambda depth, i: f"r{i}@0.5#wrong")
    model = CallModel(scripted)
    found, outcome, _ = run_method("lats", KindedEnv(), model, n_samples=3, iterations=16,
                                   stop_class_size=64, max_depth=8, **request)
    return found, scripted


def test_a_failure_the_environment_calls_unrefinable_gets_a_fresh_sample_instead():
    found, scripted = kinded_search()
    nodes = list(found.root.walk())
    raised = [n for n in nodes if n.failure_kind == "raised"]
    assert raised and all(not n.children and not n.expanded for n in raised), \
        "no raised failure is refined"
    assert any(n.depth >= 2 for n in nodes), "other failures still are"


def test_refine_every_failure_ignores_the_environments_list():
    found, _ = kinded_search(refine_every_failure=True)
    assert any(n.children for n in found.root.walk() if n.failure_kind == "raised")
