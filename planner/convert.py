"""Search-tree nodes to planner.proto messages."""

from __future__ import annotations

from lats_pb import planner_pb2 as pb

from planner.tree import Node


def node_message(node: Node) -> pb.Node:
    return pb.Node(
        id=node.id, parent_id=node.parent.id if node.parent else "", depth=node.depth,
        action=node.action, observation=node.observation, reward=node.reward,
        terminal=node.terminal, invalid_action=node.invalid_action, visits=node.visits,
        value=node.value, lm_score=node.lm_score, sc_score=node.sc_score,
        sample_count=node.sample_count, reflection=node.reflection,
        answer_key=node.answer_key, repeats=node.repeats,
        returns_to=node.returns_to.id if node.returns_to else "",
    )
