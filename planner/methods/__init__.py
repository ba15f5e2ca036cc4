"""Search methods: LATS, its ablations and the baselines of the papers.

One strategy module per method family (react, reflexion, cot, tot; MCTS is
planner.mcts), each a small object over the one search context
(planner.context), and the registry that maps SearchConfig.method to a
strategy and its settings.
"""

from planner.methods.registry import METHODS, MethodSpec, UnknownMethod, method_spec

__all__ = ["METHODS", "MethodSpec", "UnknownMethod", "method_spec"]
