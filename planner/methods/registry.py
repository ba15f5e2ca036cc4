"""The search methods a Solve request can name (SearchConfig.method).

Every method reads the same effective settings (planner.config: request >
method defaults > environment hints > the paper's defaults) and runs through
the same services and accounting. A method's `defaults` are what it is
usually run with (the request may change them); its `fixed` settings are what
the method is (a request cannot change them, and results report them).

`anytime` marks methods whose k only stops the loop: a run with k = K behaves,
up to iteration j, exactly as a run with k = j, so success by iteration j can
be read off one run (the success-vs-k curve of `lats bench`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from lats_pb import environment_pb2 as env_pb
from lats_runtime.quoting import quoted

from planner.environment import Environment, TaskRef
from planner.evaluation import Evaluator
from planner.mcts import Mcts
from planner.methods.cot import CotSearch
from planner.methods.react import TrajectorySampler
from planner.methods.reflexion import ReflexionSearch
from planner.methods.sampling import BestOfN
from planner.methods.tot import BfsSearch, DfsSearch
from planner.events import EventSink
from planner.model_client import ModelClient
from planner.search import Search, Strategy
from planner.search_config import LatsConfig

# One trajectory at a time: no tree to branch from a loop's earlier state.
_ONE_PATH = {"prune_loops": False}
_NO_VALUE = {"n_samples": 1, "complete_answer_actions": False, **_ONE_PATH}
# The paper's algorithm (Zhou et al., 2024), as its code runs it.
_PAPER = {"greedy_first": False, "answer_rule": "value", "dedup": False, "stop_class_size": 1,
          "agreement_weight": 0.0, "lazy_reflection": False, "greedy_gate": False,
          "branching": "uct", "tie_break": False}
# What this platform adds to it (README, "How lats differs from the paper").
_PLATFORM = {"greedy_first": True, "greedy_gate": True, "answer_rule": "agreement",
             "dedup": True, "lazy_reflection": True, "branching": "adaptive", "tie_break": True}


@dataclass(frozen=True)
class MethodSpec:
    name: str
    strategy: Callable[[], Strategy]   # a fresh strategy object per search
    summary: str                       # what it is, and what k and n mean for it
    defaults: Mapping[str, object] = field(default_factory=dict)
    fixed: Mapping[str, object] = field(default_factory=dict)
    anytime: bool = False
    falls_back: bool = False           # searches SearchConfig.fallback_env_address on failure
    paper: bool = False                # takes the pack's paper_search_hints (paper-faithful)
    complete_answers_only: bool = False  # needs facts.complete_answer_actions

    def __post_init__(self):
        object.__setattr__(self, "defaults", MappingProxyType(dict(self.defaults)))
        object.__setattr__(self, "fixed", MappingProxyType(dict(self.fixed)))

    def search(self, env: Environment, description: env_pb.DescribeResponse,
               model: ModelClient, config: LatsConfig, task: TaskRef, events: EventSink,
               fallback_env: Environment | None = None,
               evaluator: Evaluator | None = None) -> Search:
        """A search of `task` by this method (the fallback environment only if it uses one),
        valuing nodes with `evaluator` (default: the one `config` names)."""
        return Search(env, description, model, config, task, events, self.strategy(),
                      make_strategy=self.strategy,
                      fallback_env=fallback_env if self.falls_back else None,
                      evaluator=evaluator)


METHODS: dict[str, MethodSpec] = {spec.name: spec for spec in (
    MethodSpec("lats", Mcts,
               "LATS as this platform runs it: MCTS with value, simulation and reflection, "
               "adaptive branching (a new sample or a refinement, by Thompson sampling on "
               "what each paid), CoT's greedy attempt as the root's first child, repeats and "
               "same-state siblings merged, reflections made when a node is expanded, and the "
               "answer chosen by agreement among answers that pass the environment's checks, "
               "close classes told apart by the model's judgment; k = iterations, n = "
               "actions sampled per expansion",
               defaults=_PLATFORM, anytime=True),
    MethodSpec("lats_paper", Mcts,
               "LATS as the paper (Zhou et al., 2024) and its code run it, with the "
               "environment's paper settings: MCTS with UCT, LM value + self-consistency, "
               "simulation, reflection, the first success or the best value as the answer; "
               "k = iterations, n = actions sampled per expansion",
               fixed=_PAPER, anytime=True, paper=True),
    MethodSpec("best_of_n", BestOfN,
               "Best of N without a tree: CoT's greedy attempt plus n - 1 samples, then "
               "rounds of n more from the root prompt; answers filtered by the environment's "
               "checks and clustered by answer key (largest class); no value calls, no "
               "reflections; k = rounds; for environments whose every action is an answer",
               defaults={**_PLATFORM}, anytime=True, complete_answers_only=True,
               fixed={"lm_value": False, "reflection": False, "root_samples": 0,
                      "lazy_reflection": False, "deeper_prior": 0.0}),
    MethodSpec("lats_dfs", DfsSearch,
               "LATS (DFS) ablation: LATS's value and reflection, depth-first with value "
               "pruning instead of MCTS; k = trajectories, n = samples per expansion",
               anytime=True),
    MethodSpec("tot_dfs", DfsSearch,
               "Tree of Thoughts DFS: LM value pruning (lambda 1), no reflection, "
               "same-state siblings merged (as ToT's code drops repeats); "
               "k = trajectories, n = samples per expansion",
               defaults={"value_weight": 1.0, "reflection": False, "dedup": True}, anytime=True),
    MethodSpec("tot_bfs", BfsSearch,
               "Tree of Thoughts BFS: the b = k best states kept per depth (lambda 1), "
               "same-state siblings merged (as ToT's code drops repeats); "
               "n = samples per state", defaults={"value_weight": 1.0, "dedup": True},
               fixed={"reflection": False}),
    MethodSpec("react", TrajectorySampler,
               "ReAct: one greedy trajectory (k = 1, n = 1)",
               defaults={"temperature": 0.0},
               fixed={**_NO_VALUE, "iterations": 1, "reflection": False}),
    MethodSpec("react_bok", TrajectorySampler,
               "ReAct best of k: up to k sampled trajectories, the first success ends it; "
               "the answer by agreement (in honest mode, the answer most trajectories gave)",
               defaults={"answer_rule": "agreement"},
               fixed={**_NO_VALUE, "reflection": False}, anytime=True),
    MethodSpec("reflexion", ReflexionSearch,
               "Reflexion: up to k trials, a reflection kept in memory (at most 3 shown) "
               "after each failed one; in full-program domains k attempts in one branch",
               defaults={"temperature": 0.0}, fixed={"n_samples": 1, **_ONE_PATH}, anytime=True),
    MethodSpec("cot", CotSearch,
               "Chain of thought: one greedy transcript of the whole trajectory, "
               "stepped without feedback (k = 1)", defaults={"temperature": 0.0},
               fixed={"iterations": 1, "n_samples": 1, "reflection": False, **_ONE_PATH}),
    MethodSpec("cot_sc", CotSearch,
               "CoT with self-consistency: majority answer of k transcripts, "
               "n transcripts per model call", fixed={"reflection": False, **_ONE_PATH}),
    MethodSpec("lats_fallback", Mcts,
               "LATS, then LATS on SearchConfig.fallback_env_address with the first "
               "search's reflections if it failed (the paper's CoT then ReAct); "
               "k, n as for lats, per search", falls_back=True),
)}


class UnknownMethod(ValueError):
    """A method name that is not in METHODS."""


def method_spec(name: str) -> MethodSpec:
    """The spec of `name` ("" = "lats"); raises UnknownMethod listing the choices."""
    spec = METHODS.get(name or "lats")
    if spec is None:
        raise UnknownMethod(f"unknown method {quoted(name)}; choose one of {', '.join(METHODS)}")
    return spec
