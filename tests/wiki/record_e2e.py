"""Re-record tests/wiki/recordings/ with the embedded model (a few minutes on CPU).

    python -m tests.wiki.record_e2e

Needs the model (`lats model fetch qwen2.5-coder-0.5b`). Replaces the
recording, runs the search once with the real model through a recording
gateway, and prints the outcome to put into the test's assertions.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from lats.processes import running_services
from tests.wiki.e2e_setup import MODEL, RECORDING, env_variables, service_specs, solve


def main() -> None:
    RECORDING.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        tmp_dir = Path(tmp)
        os.environ.update(env_variables(tmp_dir))
        gateway = ["--backend", "local", "--model", MODEL, "--record", str(RECORDING),
                   "--max-concurrency", "2", "--deadline", "0"]
        specs = service_specs(gateway, tmp_dir / "runs.sqlite3")
        with running_services(specs, echo=sys.stderr) as services:
            events = solve(services["planner"].address, services["env"].address, 3600)
    for event in events:
        kind = event.WhichOneof("event")
        print(kind, getattr(event, kind))
    print("recorded", sum(1 for _ in RECORDING.open()), "exchanges in", RECORDING)


if __name__ == "__main__":
    main()
