"""Tree-parallel LATS: P selections in flight with virtual loss; P = 1 is the
sequential search (tests.methods.test_recorded_trees pins that exactly)."""

import asyncio

import pytest

from planner.mcts import Mcts
from planner.search_config import LatsConfig
from planner.methods import method_spec
from planner.tree import Node, select_leaf, uct_rule

from tests.methods.recorded_trees import hashed_answer
from tests.methods.fakes import CallModel, PathEnv, Recorder, run_method
from planner.environment import TaskRef


class SlowModel(CallModel):
    """hashed_answer after `delay` seconds; counts calls in flight."""

    def __init__(self, answer, delay=0.02, max_calls=None):
        super().__init__(answer, max_calls)
        self.delay, self.in_flight, self.max_in_flight = delay, 0, 0

    async def complete(self, messages, params):
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay)
            return await super().complete(messages, params)
        finally:
            self.in_flight -= 1


def test_virtual_loss_lowers_uct_and_is_exact_without_it():
    rule = uct_rule(1.0)
    parent = Node(id="0", visits=4, expanded=True)
    child = Node(id="0.0", parent=parent, visits=2, value=0.8)
    plain = rule(parent, child)
    assert plain == 0.8 + (__import__("math").log(4) / 2) ** 0.5
    child.virtual_loss = 1
    parent.virtual_loss = 1
    assert rule(parent, child) < plain


def test_a_leaf_in_flight_is_not_selected_again():
    root = Node(id="0", visits=3, expanded=True)
    a = Node(id="0.0", parent=root, visits=1, value=0.9)
    b = Node(id="0.1", parent=root, visits=1, value=0.1)
    root.children = [a, b]
    rule = uct_rule(1.0)
    assert select_leaf(root, rule) is a
    a.virtual_loss = 1
    assert select_leaf(root, rule) is b
    b.virtual_loss = 1
    assert select_leaf(root, rule) is None


@pytest.mark.parametrize("parallel", [2, 4, 8])
def test_parallel_search_keeps_p_calls_in_flight_and_leaves_no_virtual_loss(parallel):
    model = SlowModel(hashed_answer)
    search, outcome, events = run_method("lats_paper", PathEnv(), model, seed=2, iterations=12,
                                         max_depth=4, n_samples=3, parallel=parallel)
    assert model.max_in_flight > 1
    assert outcome.iterations <= 12
    assert all(n.virtual_loss == 0 for n in search.root.walk())
    selected = [args[0].id for args in events.of("selected")]
    assert len(selected) == outcome.iterations
    # the root's visits count itself plus every backpropagated rollout
    assert search.root.visits == 1 + len(events.of("backpropagated"))
    assert outcome.status in ("solved", "failed")


def test_parallel_search_spreads_over_distinct_leaves():
    model = SlowModel(hashed_answer)
    _, _, events = run_method("lats_paper", PathEnv(), model, seed=2, iterations=8, max_depth=4,
                              n_samples=3, parallel=4)
    selected = [args[0].id for args in events.of("selected")]
    assert len(set(selected)) == len(selected)         # never the same leaf twice


def never_wins(purpose, prompt, params):
    return [t.replace("win", "c") for t in hashed_answer(purpose, prompt, params)]


def test_parallel_search_is_faster_at_equal_model_calls():
    def timed(parallel):
        model = SlowModel(never_wins, delay=0.05)
        env = PathEnv()
        config = LatsConfig(n_samples=3, iterations=8, max_depth=4, seed=5, parallel=parallel,
                            reflection=False)
        search = method_spec("lats_paper").search(env, env.description, model, config,
                                            TaskRef(task_id="t"), Recorder())
        loop = asyncio.new_event_loop()
        began = loop.time()
        outcome = loop.run_until_complete(search.run())
        seconds = loop.time() - began
        loop.close()
        return seconds, model.usage.calls, outcome

    one, calls_one, _ = timed(1)
    four, calls_four, outcome = timed(4)
    assert outcome.iterations == 8 and outcome.status == "failed"
    assert four < one / 2 and calls_four <= calls_one * 1.5


def test_the_budget_running_out_ends_a_parallel_search_gracefully():
    model = SlowModel(never_wins, max_calls=10)
    search, outcome, _ = run_method("lats_paper", PathEnv(), model, seed=2, iterations=30,
                                    max_depth=4, n_samples=3, parallel=4)
    assert outcome.status == "failed" and outcome.reason.startswith("model budget spent")
    assert model.usage.calls == 10
    assert all(n.virtual_loss == 0 for n in search.root.walk())


def test_mcts_takes_p_from_its_constructor():
    assert Mcts(parallel=3).parallel == 3 and Mcts().parallel is None


class LoggingModel(SlowModel):
    """SlowModel that marks the start of each call in the search's event log."""

    log: list

    async def complete(self, messages, params):
        self.log.append(("call_started", ()))
        return await super().complete(messages, params)


@pytest.mark.parametrize("seed", [2, 3, 4, 7])
def test_a_success_cancels_the_iterations_in_flight(seed):
    model = LoggingModel(hashed_answer, delay=0.02)
    env, events = PathEnv(), Recorder()
    model.log = events.events
    config = LatsConfig(n_samples=3, iterations=16, max_depth=4, seed=seed, parallel=4)
    search = method_spec("lats_paper").search(env, env.description, model, config,
                                        TaskRef(task_id="t"), events)
    outcome = asyncio.run(asyncio.wait_for(search.run(), 20))
    assert outcome.status == "solved"
    kinds = [kind for kind, _ in events.events]
    success = next(i for i, (kind, args) in enumerate(events.events)
                   if kind == "backpropagated" and args[1] >= 1)
    assert "call_started" not in kinds[success:]          # nothing ran on after the answer
    assert model.in_flight == 0
    assert all(n.virtual_loss == 0 for n in search.root.walk())
