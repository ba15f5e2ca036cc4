"""Typed views of the planner's answers: runs, their results and their trees.

Every class is a frozen dataclass built from the protobuf message by its
`from_message`; the message itself stays reachable as `.message` (left out of
equality and repr) for tools that want the wire form. Statuses are
`RunStatus` members, strings equal to their short names: "running", "solved",
"failed", "error", "interrupted", "cancelled".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor

from lats_pb import planner_pb2 as pb
from lats_runtime.reward_modes import name_of
from lats_runtime.run_status import RunStatus, from_wire

_INT64_TYPES = {FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT64,
                FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED64}


def message_dict(message) -> dict[str, Any]:
    """A message as a dict with proto field names, every field present, and 64-bit
    integers as Python ints (JSON mapping writes them as strings)."""
    return _ints(message.DESCRIPTOR, json_format.MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True))


def _ints(descriptor, values: dict[str, Any]) -> dict[str, Any]:
    for field in descriptor.fields:
        if field.name not in values:
            continue
        value = values[field.name]
        repeated = isinstance(value, list)
        if field.type in _INT64_TYPES:
            values[field.name] = [int(v) for v in value] if repeated else int(value)
        elif field.message_type is not None and not field.message_type.GetOptions().map_entry:
            for item in (value if repeated else [value]):
                if isinstance(item, dict):
                    _ints(field.message_type, item)
    return values


@dataclass(frozen=True)
class Node:
    """One node of a search tree: the action that led to it and what the search
    knows of it. `lm_score` is None for a node the model has not valued."""

    id: str
    parent_id: str
    depth: int
    action: str
    observation: str
    reward: float
    terminal: bool
    invalid_action: bool
    visits: int
    value: float
    lm_score: float | None
    sc_score: float
    sample_count: int
    reflection: str
    answer_key: str
    repeats: int
    message: pb.Node = field(compare=False, repr=False)

    @classmethod
    def from_message(cls, node: pb.Node) -> Node:
        return cls(id=node.id, parent_id=node.parent_id, depth=node.depth, action=node.action,
                   observation=node.observation, reward=node.reward, terminal=node.terminal,
                   invalid_action=node.invalid_action, visits=node.visits, value=node.value,
                   lm_score=None if node.lm_score < 0 else node.lm_score,
                   sc_score=node.sc_score, sample_count=node.sample_count,
                   reflection=node.reflection, answer_key=node.answer_key,
                   repeats=node.repeats, message=node)


@dataclass(frozen=True)
class Usage:
    """The model usage of a run: calls and tokens."""

    calls: int
    prompt_tokens: int
    completion_tokens: int

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class Score:
    """The environment's verdict against hidden ground truth (never seen by the search)."""

    score: float
    success: bool
    details: str
    metrics: dict[str, float]


@dataclass(frozen=True)
class Result:
    """How a run ended: its answer, the hidden-test score, what it cost, and the
    settings it ran with (`config`, SearchConfig's fields by name)."""

    status: RunStatus
    actions: tuple[str, ...]
    final_observation: str
    reward: float
    score: Score | None
    usage: Usage
    iterations: int
    nodes_expanded: int
    nodes: int
    wall_seconds: float
    model_seconds: float
    error: str
    stop_reason: str
    method: str
    model: str
    environment: str
    task_id: str
    reward_mode: str
    second_term: str
    config: dict[str, Any]
    answer_node_id: str
    greedy_node_id: str
    answer_reason: str
    value_parse_failures: int
    repeats_merged: int
    partial_credit_rewards: bool    # the environment's Step rewards grade every step
    message: pb.RunResult = field(compare=False, repr=False)

    @property
    def solved(self) -> bool:
        """The search reached its success threshold."""
        return self.status is RunStatus.SOLVED

    @property
    def success(self) -> bool:
        """The answer passed the hidden tests (the search's own verdict when unscored)."""
        return self.score.success if self.score is not None else self.solved

    @property
    def answer(self) -> str:
        """The chosen trajectory's last action ("" when there is none)."""
        return self.actions[-1] if self.actions else ""

    @classmethod
    def from_message(cls, result: pb.RunResult) -> Result:
        score = (Score(result.score.score, result.score.success, result.score.details,
                       dict(result.score.metrics)) if result.scored else None)
        return cls(
            status=from_wire(result.status), actions=tuple(result.actions),
            final_observation=result.final_observation, reward=result.reward, score=score,
            usage=Usage(result.usage.calls, result.usage.prompt_tokens,
                        result.usage.completion_tokens),
            iterations=result.iterations, nodes_expanded=result.nodes_expanded,
            nodes=result.nodes, wall_seconds=result.wall_seconds,
            model_seconds=result.model_seconds, error=result.error,
            stop_reason=result.stop_reason, method=result.method or result.config.method,
            model=result.model, environment=result.environment, task_id=result.task_id,
            reward_mode=name_of(result.reward_mode), second_term=result.second_term,
            config=message_dict(result.config), answer_node_id=result.answer_node_id,
            greedy_node_id=result.greedy_node_id, answer_reason=result.answer_reason,
            value_parse_failures=result.value_parse_failures,
            repeats_merged=result.repeats_merged,
            partial_credit_rewards=result.partial_credit_rewards, message=result)


@dataclass(frozen=True)
class Reflection:
    """A reflection and the node (a failed trajectory's end) it was made on."""

    node_id: str
    text: str


@dataclass(frozen=True)
class Run:
    """A stored run. Listed runs (`runs()`) come without their tree: `nodes`,
    `reflections` and `setup` are empty; `run()` gives the whole record."""

    run_id: str
    status: RunStatus
    task_id: str
    created_at: str
    owner: str
    owner_address: str
    heartbeat_at: str
    last_seq: int
    result: Result
    nodes: tuple[Node, ...]
    reflections: tuple[Reflection, ...]
    setup: str
    message: pb.Run = field(compare=False, repr=False)

    @property
    def running(self) -> bool:
        return self.status is RunStatus.RUNNING

    def node(self, node_id: str) -> Node:
        """The node with that id; KeyError when the tree has none."""
        for node in self.nodes:
            if node.id == node_id:
                return node
        raise KeyError(node_id)

    def answer_path(self) -> list[Node]:
        """The nodes from the root to the reported answer ([] without one)."""
        by_id = {node.id: node for node in self.nodes}
        path: list[Node] = []
        node_id = self.result.answer_node_id
        while node_id in by_id and by_id[node_id] not in path:
            path.append(by_id[node_id])
            node_id = by_id[node_id].parent_id
        return path[::-1]

    @classmethod
    def from_message(cls, run: pb.Run) -> Run:
        notes = (tuple(Reflection(n.node_id, n.text) for n in run.reflection_notes)
                 or tuple(Reflection("", text) for text in run.reflections))
        return cls(run_id=run.run_id, status=from_wire(run.status),
                   task_id=run.task_id or run.result.task_id, created_at=run.created_at,
                   owner=run.owner, owner_address=run.owner_address,
                   heartbeat_at=run.heartbeat_at, last_seq=run.last_seq,
                   result=Result.from_message(run.result),
                   nodes=tuple(Node.from_message(node) for node in run.nodes),
                   reflections=notes, setup=run.setup, message=run)


@dataclass(frozen=True)
class Facets:
    """What the stored runs can be filtered by: their environments, methods, models."""

    environments: tuple[str, ...]
    methods: tuple[str, ...]
    models: tuple[str, ...]


@dataclass(frozen=True)
class RunPage:
    """One page of ListRuns: its runs, where the next page starts (None: no more),
    and the facets when they were asked for."""

    runs: tuple[Run, ...]
    next_offset: int | None
    facets: Facets | None

    @classmethod
    def from_message(cls, response: pb.ListRunsResponse, with_facets: bool) -> RunPage:
        token = response.next_page_token
        facets = (Facets(tuple(response.facets.environments), tuple(response.facets.methods),
                         tuple(response.facets.models)) if with_facets else None)
        return cls(tuple(Run.from_message(run) for run in response.runs),
                   int(token) if token.isdigit() else None, facets)
