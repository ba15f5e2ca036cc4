"""The settings one search runs with (every method reads them), and the paper's defaults.

planner.config merges them in layers from the paper's defaults, the
environment's search hints, the method and the request; strategies read them
from their search context (planner.context).
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_N_SAMPLES = 5
DEFAULT_ITERATIONS = 30
DEFAULT_MAX_DEPTH = 7
ANSWER_RULES = ("value", "agreement")
BRANCHINGS = ("uct", "adaptive")


@dataclass(frozen=True)
class LatsConfig:
    """The search's hyperparameters (names as in the paper)."""

    n_samples: int = DEFAULT_N_SAMPLES      # n
    iterations: int = DEFAULT_ITERATIONS    # k
    max_depth: int = DEFAULT_MAX_DEPTH      # d
    exploration_weight: float = 1.0         # w
    value_weight: float = 0.5               # lambda
    reflection: bool = True
    simulate: bool = True
    temperature: float = 1.0
    seed: int = 0
    max_reflections: int = 3
    value_samples: int = 1
    root_samples: int = 0                   # samples at the root (0 = n)
    # The environment's statement that each action is a whole answer attempt (its
    # search hint reflect_each_failure): each failed attempt then gets its own
    # reflection, in its branch, instead of one per rollout in memory.
    complete_answer_actions: bool = False
    reward_in_value: bool = False           # V = lambda*LM + (1-lambda)*reward
    lm_value: bool = True                   # ablation off: V = SC (or reward), no value calls
    parallel: int = 1                       # P: MCTS selections in flight at once
    greedy_first: bool = False              # the root's first child is CoT's greedy attempt
    answer_rule: str = "value"              # "value" (the paper) | "agreement"
    dedup: bool = False                     # repeats anywhere in the tree merged, not rescored
    stop_class_size: int = 1                # agreement: stop once a passing class is this big
    agreement_weight: float = 0.0           # beta: behaviour agreement in the second term
    lazy_reflection: bool = False           # reflect on a failed node when it is selected
    widening: float = 0.0                   # alpha: progressive widening (0 = off)
    greedy_gate: bool = False               # the greedy attempt stepped alone first; no samples
                                            # are drawn when it ends the search
    branching: str = "uct"                  # "uct" (the paper, with widening) | "adaptive"
    wider_prior: float = 0.5                # adaptive: Beta mean of a new sample's graded reward
    deeper_prior: float = 0.5               # adaptive: ... of a refinement (0 = never: best-of-n)
    prior_strength: float = 1.0             # adaptive: pseudo-observations in each prior
    tie_break: bool = False                 # agreement: the model judges close classes
    prune_loops: bool = False               # a step back to a state on its path: value 0, not
                                            # explored
    unrefined_failures: tuple[str, ...] = ()  # adaptive: failure kinds not refined (a fresh
                                            # sample instead): the environment's hint
