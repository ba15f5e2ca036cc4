"""The end-to-end HotPotQA run shared by its test and its recording script.

One search of a question through the three services (environment, gateway,
planner) as separate processes. The test replays a recording of the embedded
0.5B model; `record_e2e.py` makes that recording with the real model. Any
change to the prompt pack, the corpus or the search settings changes the
prompts, so the recording must then be made again.
"""

from __future__ import annotations

from pathlib import Path

import grpc

from lats_pb import planner_pb2 as pb
from lats_pb import planner_pb2_grpc as pb_grpc

HERE = Path(__file__).parent
RECORDING = HERE / "recordings" / "hotpotqa_e2e_qwen0.5b.jsonl"
TASK = "hotpotqa/9"    # "Are Local H and For Against both from the United States?" -> yes
CONFIG = dict(method="lats_paper", n_samples=2, iterations=2, max_depth=3, seed=7)
MODEL = "qwen2.5-coder-0.5b"


def env_variables(tmp_dir: Path) -> dict[str, str]:
    """The environment server's settings: oracle rewards, a fresh offline index."""
    return {"LATS_HOTPOTQA_REWARD_MODE": "oracle",
            "LATS_WIKI_CACHE_DIR": str(tmp_dir / "wiki-cache"),
            "LATS_WIKI_INDEX": str(tmp_dir / "wiki-cache" / "e2e.sqlite3")}


def service_specs(gateway_args: list[str], db: Path) -> list[tuple[str, list[str]]]:
    return [
        ("env", ["env", "hotpotqa"]),
        ("gateway", ["gateway", *gateway_args]),
        ("planner", ["planner", "--gateway", "{gateway}", "--db", str(db)]),
    ]


def solve(planner_address: str, env_address: str, timeout: float) -> list[pb.SearchEvent]:
    request = pb.SolveRequest(env_address=env_address, task_id=TASK,
                              config=pb.SearchConfig(**CONFIG))
    with grpc.insecure_channel(planner_address) as channel:
        return list(pb_grpc.PlannerStub(channel).Solve(request, timeout=timeout))
