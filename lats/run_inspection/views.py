"""Plain views of stored runs: JSON, the status names of queries, the value's labels, paths.

JSON is protobuf's JSON mapping with the proto field names and every field
present (zeros included), so a consumer never has to know proto defaults;
64-bit integers are strings, as that mapping says.
"""

from __future__ import annotations

from google.protobuf import json_format

from lats_pb import planner_pb2 as pb
from lats_runtime.run_status import NAMED, to_wire

NOT_EVALUATED = -1.0
# The status names a query may use, and their wire values.
STATUS_VALUES = {status.value: to_wire(status) for status in NAMED}
SECOND_TERMS = {"sc": "self-consistency", "reward": "reward"}


def message_json(message) -> dict:
    """A protobuf message as a JSON-ready dict (proto field names, defaults included)."""
    return json_format.MessageToDict(message, preserving_proto_field_name=True,
                                     always_print_fields_with_no_presence=True)


def second_term_label(run: pb.Run) -> str:
    """What V mixes with the LM score in this run ("self-consistency" or "reward")."""
    return SECOND_TERMS.get(run.result.second_term or "sc", run.result.second_term)


def value_formula(run: pb.Run) -> str:
    term = "reward" if run.result.second_term == "reward" else "SC"
    weight = run.result.config.value_weight
    return f"V = {weight:g}·LM + {1 - weight:g}·{term}"


def answer_path(run: pb.Run) -> list[str]:
    """Node ids from the root to the reported answer ([] when there is none)."""
    parents = {node.id: node.parent_id for node in run.nodes}
    path: list[str] = []
    node_id = run.result.answer_node_id
    while node_id and node_id in parents and node_id not in path:
        path.append(node_id)
        node_id = parents[node_id]
    return path[::-1]
