"""Search methods: LATS, its ablations and the baselines of the papers.

One module per method family (react, reflexion, cot, tot), a shared base
(base.SearchMethod: LATS's tree operations with another control loop) and
the registry that maps SearchConfig.method to a class and its settings.
"""

from planner.methods.registry import METHODS, MethodSpec, UnknownMethod, method_spec

__all__ = ["METHODS", "MethodSpec", "UnknownMethod", "method_spec"]
