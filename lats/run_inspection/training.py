"""Search trees as training data, in TRL's field names (docs/training-data.md).

For each run, from its stored tree and its kept expansion calls
(planner.call_log), five kinds of JSONL rows:

  expansions   every sampled completion of every expansion: `prompt` (the chat
               messages the model saw) and `completion` (what it wrote), with
               the node it led to, that step's environment reward, the best
               terminal reward reached below it (`outcome`) and the search's
               own values (value, lm_score, visits) as plain columns
  preferences  pairs of sibling completions from one expansion: `prompt`,
               `chosen`, `rejected`, labelled by environment reward only: a
               node's label is its `outcome` (the best reward of a terminal
               state at or below it; where Step rewards are partial credit, of
               any state), and the sibling with the higher label is chosen;
               siblings with no label, or with equal labels, make no pair (the
               model's value never does)
  unpaired     the same siblings one by one, for KTO: `prompt`, `completion`
               and a boolean `label`, true for a completion whose outcome is
               the best among its labelled siblings
  answers      the chosen answer's trajectory, one row per step, as prompt and
               completion, with the run's Score
  runs         one summary per run: status, Score, the answer's actions, and
               the model calls and tokens it cost

Prompts and completions are TRL's conversational format: lists of
{"role", "content"} messages. Each file is exactly one of TRL's dataset types
(prompt-completion, preference, unpaired preference): of the keys TRL's
`apply_chat_template` checks (prompt, chosen, rejected, completion, messages,
label) a row holds exactly that type's set, so `label` appears in the unpaired
file only. Every other column is a plain fact TRL's key check ignores and its
trainers drop (`remove_unused_columns`); TRL_COLUMNS names each file's set.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lats_pb import planner_pb2 as pb
from lats_runtime.reward_modes import name_of
from lats_runtime.run_status import from_wire

from lats.run_inspection.views import answer_path
from planner.prompting import action_key

FILES = ("expansions", "preferences", "unpaired", "answers", "runs")
# The keys TRL's data utilities read (trl.data_utils.apply_chat_template), by file:
# the one TRL dataset type each file is.
TRL_KEYS = frozenset({"prompt", "chosen", "rejected", "completion", "messages", "label"})
TRL_COLUMNS = {"expansions": ("prompt", "completion"),
               "preferences": ("prompt", "chosen", "rejected"),
               "unpaired": ("prompt", "completion", "label"),
               "answers": ("prompt", "completion")}
SCHEMA_VERSION = 1


def _messages(call: pb.ModelCall) -> list[dict[str, str]]:
    return [{"role": message.role, "content": message.content} for message in call.prompt]


def _assistant(text: str) -> list[dict[str, str]]:
    return [{"role": "assistant", "content": text}]


def _score(value: float) -> float | None:
    """A value the search never computed (the -1 sentinel) as null."""
    return None if value < 0 else value


def partial_credit(run: pb.Run) -> bool:
    """The run's environment grades every step (its Step rewards are partial credit,
    e.g. the share of visible tests a program passes). Runs stored before
    RunResult.partial_credit_rewards existed say so by valuing with the step's
    reward (second_term "reward"), which environments ask for only then."""
    return run.result.partial_credit_rewards or run.result.second_term == "reward"


@dataclass
class RunTree:
    """One run's nodes with the relations the rows need."""

    run: pb.Run

    def __post_init__(self) -> None:
        self.partial_credit = partial_credit(self.run)
        self.nodes = {node.id: node for node in self.run.nodes}
        self.children: dict[str, list[pb.Node]] = {}
        for node in self.run.nodes:
            if node.parent_id:
                self.children.setdefault(node.parent_id, []).append(node)
        self.on_answer = set(answer_path(self.run))
        self._outcomes: dict[str, float | None] = {}

    def outcome(self, node_id: str) -> float | None:
        """The best environment reward at or below the node (invalid actions aside)
        of a terminal state, or of any state where rewards are partial credit;
        None when no such state was reached there."""
        if node_id not in self._outcomes:
            node = self.nodes[node_id]
            graded = (node.terminal or self.partial_credit) and not node.invalid_action
            found = [node.reward] if graded else []
            found += [value for child in self.children.get(node_id, [])
                      if (value := self.outcome(child.id)) is not None]
            self._outcomes[node_id] = max(found) if found else None
        return self._outcomes[node_id]

    def child_for(self, parent_id: str, action: str) -> pb.Node | None:
        """The child of `parent_id` that `action` became (actions equal up to spacing)."""
        key = action_key(action)
        if not key:
            return None
        return next((child for child in self.children.get(parent_id, [])
                     if action_key(child.action) == key), None)


def _run_columns(run: pb.Run) -> dict[str, Any]:
    result = run.result
    return {"run_id": run.run_id, "task_id": run.task_id, "environment": result.environment,
            "method": result.method or result.config.method, "model": result.model,
            "reward_mode": name_of(result.reward_mode)}


def expansion_rows(tree: RunTree, calls: Iterable[pb.ModelCall]) -> Iterator[dict]:
    base = _run_columns(tree.run)
    for call in calls:
        parent = tree.nodes.get(call.node_id)
        if parent is None:
            continue
        prompt = _messages(call)
        for index, (completion, action) in enumerate(zip(call.completions, call.actions)):
            child = tree.child_for(call.node_id, action)
            yield {
                "prompt": prompt, "completion": _assistant(completion), **base,
                "call_index": call.index, "sample_index": index, "node_id": call.node_id,
                "depth": parent.depth, "action": action,
                "child_id": child.id if child else None,
                "observation": child.observation if child else None,
                "reward": child.reward if child else None,
                "terminal": child.terminal if child else None,
                "invalid_action": child.invalid_action if child else None,
                "outcome": tree.outcome(child.id) if child else None,
                "value": child.value if child else None,
                "lm_score": _score(child.lm_score) if child else None,
                "visits": child.visits if child else None,
                "on_answer_path": bool(child and child.id in tree.on_answer),
            }


def _labelled_siblings(tree: RunTree, call: pb.ModelCall) -> list[tuple[float, pb.Node, str]]:
    """The expansion's children with a known outcome, each with the first completion
    that produced it, in sample order."""
    first_text: dict[str, tuple[pb.Node, str]] = {}     # child id -> (child, completion)
    for completion, action in zip(call.completions, call.actions):
        child = tree.child_for(call.node_id, action)
        if child is not None and child.id not in first_text:
            first_text[child.id] = (child, completion)
    return [(outcome, child, text) for child, text in first_text.values()
            if (outcome := tree.outcome(child.id)) is not None]


def preference_rows(tree: RunTree, calls: Iterable[pb.ModelCall]) -> Iterator[dict]:
    base = _run_columns(tree.run)
    for call in calls:
        if call.node_id not in tree.nodes:
            continue
        labelled = _labelled_siblings(tree, call)
        for (label_a, a, text_a), (label_b, b, text_b) in itertools.combinations(labelled, 2):
            if label_a == label_b:
                continue
            (high, chosen, chosen_text), (low, rejected, rejected_text) = sorted(
                ((label_a, a, text_a), (label_b, b, text_b)), key=lambda item: -item[0])
            yield {
                "prompt": _messages(call), "chosen": _assistant(chosen_text),
                "rejected": _assistant(rejected_text), **base, "call_index": call.index,
                "node_id": call.node_id, "chosen_node_id": chosen.id,
                "rejected_node_id": rejected.id, "chosen_reward": high,
                "rejected_reward": low,
            }


def unpaired_rows(tree: RunTree, calls: Iterable[pb.ModelCall]) -> Iterator[dict]:
    """The completions of the preference pairs one by one (each once per expansion):
    `label` true where the outcome is the best among the labelled siblings."""
    base = _run_columns(tree.run)
    for call in calls:
        if call.node_id not in tree.nodes:
            continue
        labelled = _labelled_siblings(tree, call)
        outcomes = {outcome for outcome, _, _ in labelled}
        if len(outcomes) < 2:                  # no two siblings differ: no pair, no label
            continue
        best = max(outcomes)
        for outcome, child, text in labelled:
            yield {
                "prompt": _messages(call), "completion": _assistant(text),
                "label": outcome == best, **base, "call_index": call.index,
                "node_id": call.node_id, "child_id": child.id, "outcome": outcome,
                "best_sibling_outcome": best,
            }


def answer_rows(tree: RunTree, calls: Iterable[pb.ModelCall]) -> Iterator[dict]:
    """The answer's steps; each from the first kept call at its parent that proposed it."""
    run, base = tree.run, _run_columns(tree.run)
    path = answer_path(run)
    by_node: dict[str, list[pb.ModelCall]] = {}
    for call in calls:
        by_node.setdefault(call.node_id, []).append(call)
    score = run.result.score if run.result.scored else None
    for step, node_id in enumerate(path[1:], start=1):
        node = tree.nodes[node_id]
        found = next(((call, text) for call in by_node.get(node.parent_id, [])
                      for text, action in zip(call.completions, call.actions)
                      if action_key(action) == action_key(node.action)), None)
        if found is None:
            continue
        call, text = found
        yield {"prompt": _messages(call), "completion": _assistant(text), **base,
               "step": step, "node_id": node_id, "action": node.action,
               "observation": node.observation, "reward": node.reward,
               "success": score.success if score else None,
               "score": score.score if score else None}


def run_row(tree: RunTree) -> dict:
    run, result = tree.run, tree.run.result
    return {**_run_columns(run), "schema_version": SCHEMA_VERSION,
            "status": from_wire(run.status), "scored": result.scored,
            "success": result.score.success if result.scored else None,
            "score": result.score.score if result.scored else None,
            "answer_node_id": result.answer_node_id or None, "actions": list(result.actions),
            "reward": result.reward, "calls": int(result.usage.calls),
            "prompt_tokens": int(result.usage.prompt_tokens),
            "completion_tokens": int(result.usage.completion_tokens),
            "iterations": result.iterations, "nodes": len(run.nodes),
            "n_samples": result.config.n_samples, "max_iterations": result.config.iterations,
            "max_depth": result.config.max_depth}


def write_training_data(runs: Iterable[tuple[pb.Run, list[pb.ModelCall]]],
                        out: Path) -> dict[str, int]:
    """Writes the five JSONL files into `out`; returns how many rows each got."""
    out.mkdir(parents=True, exist_ok=True)
    counts = dict.fromkeys(FILES, 0)
    handles = {name: (out / f"{name}.jsonl").open("w", encoding="utf-8") for name in FILES}
    try:
        for run, calls in runs:
            tree = RunTree(run)
            rows = {"expansions": expansion_rows(tree, calls),
                    "preferences": preference_rows(tree, calls),
                    "unpaired": unpaired_rows(tree, calls),
                    "answers": answer_rows(tree, calls), "runs": iter([run_row(tree)])}
            for name, produced in rows.items():
                for row in produced:
                    handles[name].write(json.dumps(row, ensure_ascii=False) + "\n")
                    counts[name] += 1
    finally:
        for handle in handles.values():
            handle.close()
    return counts
