"""A bench of the embedded 0.5B model, replayed: LATS, Reflexion and ReAct
best-of-k on game24/0 (1 1 4 6) at an equal budget of 10 calls (re-recorded when a
wrong `(left: ...)` list stopped being an invalid step).

recordings/game24_0_qwen0.5b.jsonl.gz holds the model's exchanges, recorded by
    lats bench --start-services --backend local --model qwen2.5-coder-0.5b \\
        --gateway-arg=--record=FILE --split train --slice 0:1 \\
        -m lats -m reflexion -m react_bok -n 3 -k 10 --max-calls 10 --out DIR
and *_expected.json what that bench stored (the LATS of the recording is
`lats_paper` now, the paper-faithful variant). Replaying the same bench must
reproduce every stored figure: the methods send exactly the same requests
(deterministic seeds and prompts) and account for them the same way. Any
change to the prompt pack or to a method's prompts invalidates the recording;
record it again with the command above.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

from lats.method_comparison.store import BenchStore

HERE = Path(__file__).parent / "recordings"
RECORDING = HERE / "game24_0_qwen0.5b.jsonl.gz"
EXPECTED = HERE / "game24_0_qwen0.5b_expected.json"


def test_replaying_the_recorded_bench_reproduces_every_stored_figure(tmp_path):
    replay = tmp_path / "recording.jsonl"
    replay.write_bytes(gzip.decompress(RECORDING.read_bytes()))
    done = subprocess.run(
        [sys.executable, "-m", "lats", "--log-level", "WARNING", "bench", "--start-services",
         "--backend", "replay", f"--gateway-arg=--replay={replay}", "--task", "game24/0",
         "-m", "lats_paper", "-m", "reflexion", "-m", "react_bok", "-n", "3", "-k", "10",
         "--max-calls", "10", "--concurrency", "1", "--out", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    store = BenchStore(tmp_path / "out" / "bench.sqlite3")
    records = {r["label"].replace("lats_paper", "lats"): r for r in store.records()}
    store.close()
    for expected in json.loads(EXPECTED.read_text()):
        got = dict(records[expected["label"]], label=expected["label"])
        assert got["model"].endswith(expected["model"].split(":")[-1])
        assert {k: got[k] for k in expected if k != "model"} == {
            k: v for k, v in expected.items() if k != "model"}, expected["label"]
