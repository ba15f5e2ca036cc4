"""Records what each method does on the in-memory PathEnv with a deterministic
model: the whole tree, every model call and the event sequence.

`recorded_trees.json` holds these records as the search produced them before
the planner core became strategies over one search context (and before
tree-parallel LATS); test_recorded_trees checks the core still reproduces
them exactly. Regenerate (only when a behaviour change is intended) with
`python -m tests.methods.recorded_trees`. Intended changes since: the
siblings of a child that succeeded get no value call (the search ends with
that success, so their values could not matter): lats, lats_seed2 and
lats_dfs make 2, 1 and 2 calls fewer, all else the same. The LATS cases run
`lats_paper`, the paper-faithful variant.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from lats_pb import environment_pb2 as env_pb

from tests.methods.fakes import CallModel, PathEnv, description, run_method

RECORD = Path(__file__).with_name("recorded_trees.json")
ACTIONS = ("a", "b", "c", "lose", "bad", "d", "win")


def _pick(*parts) -> int:
    return int.from_bytes(hashlib.sha256(":".join(map(str, parts)).encode()).digest()[:4], "big")


def hashed_answer(purpose, prompt, params):
    """Deterministic texts from the purpose, the seed and the prompt."""
    texts = []
    for i in range(params.n):
        h = _pick(purpose, params.seed, prompt, i)
        if purpose == "value":
            texts.append(f"the score is {1 + h % 10}")
        elif purpose == "reflect":
            texts.append(f"lesson {h % 97}")
        elif purpose == "cot":
            texts.append("][".join(ACTIONS[(h >> (3 * j)) % (len(ACTIONS) - 1)] for j in range(3)))
        else:
            texts.append("win" if h % 61 == 0 else ACTIONS[h % (len(ACTIONS) - 1)])
    return texts


def _full_program() -> env_pb.DescribeResponse:
    desc = description()
    desc.prompt_pack.search_hints.CopyFrom(env_pb.SearchHints(
        reflect_each_failure=True, reward_in_value=True, simulate=False))
    return desc


CASES = {
    "lats": ("lats_paper", None, dict(seed=1, iterations=8, max_depth=4, n_samples=3)),
    "lats_seed2": ("lats_paper", None, dict(seed=2, iterations=10, max_depth=5, n_samples=4)),
    "lats_honest": ("lats_paper", lambda: description("honest"),
                    dict(seed=1, iterations=6, max_depth=4, n_samples=3)),
    "lats_full_program": ("lats_paper", _full_program, dict(seed=1, iterations=6, max_depth=4,
                                                      n_samples=3)),
    "lats_no_lm_value": ("lats_paper", None, dict(seed=3, iterations=6, max_depth=4, n_samples=3,
                                            lm_value=False)),
    "lats_dfs": ("lats_dfs", None, dict(seed=1, iterations=5, max_depth=4, n_samples=3)),
    "tot_dfs": ("tot_dfs", None, dict(seed=1, iterations=5, max_depth=4, n_samples=3)),
    "tot_bfs": ("tot_bfs", None, dict(seed=1, iterations=2, max_depth=3, n_samples=3)),
    "react": ("react", None, dict(seed=1, max_depth=5)),
    "react_bok": ("react_bok", None, dict(seed=1, iterations=4, max_depth=5)),
    "reflexion": ("reflexion", None, dict(seed=1, iterations=4, max_depth=5)),
    "cot": ("cot", None, dict(seed=1, max_depth=5)),
    "cot_sc": ("cot_sc", None, dict(seed=1, iterations=4, n_samples=2, max_depth=5)),
}


def _node(node) -> dict:
    return dict(id=node.id, action=node.action, observation=node.observation,
                reward=node.reward, terminal=node.terminal, invalid=node.invalid_action,
                visits=node.visits, value=round(node.value, 9),
                lm_score=round(node.lm_score, 9), sc=round(node.sc_score, 9),
                samples=node.sample_count, exhausted=node.exhausted,
                expanded=node.expanded, reflection=node.reflection)


def record(case: str) -> dict:
    """Runs one case and returns its record (JSON-ready)."""
    method, make_desc, request = CASES[case]
    env = PathEnv()
    if make_desc is not None:
        env.description = make_desc()
    model = CallModel(hashed_answer)
    search, outcome, events = run_method(method, env, model, **request)
    return dict(
        status=outcome.status, reason=outcome.reason, iterations=outcome.iterations,
        nodes_expanded=outcome.nodes_expanded,
        answer=outcome.answer.id if outcome.answer is not None else None,
        reflections=outcome.reflections,
        tree=[_node(n) for n in search.root.walk()],
        calls=[[p, params.seed, params.n, params.temperature, params.max_tokens]
               for p, _, params in model.calls],
        events=[[kind, *[a.id if hasattr(a, "visits") else a for a in args
                         if hasattr(a, "visits") or isinstance(a, (int, float, str))]]
                for kind, args in events.events],
    )


if __name__ == "__main__":
    RECORD.write_text(json.dumps({case: record(case) for case in CASES}, indent=1) + "\n")
    print(f"wrote {RECORD}")
