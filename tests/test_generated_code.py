"""The checked-in generated code must match what `make protos` produces."""

import filecmp
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_generated_code_matches_the_protos(tmp_path):
    protos = sorted((ROOT / "protos" / "lats_pb").glob("*.proto"))
    assert protos, "no .proto files found"
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", "-I", str(ROOT / "protos"),
         f"--python_out={tmp_path}", f"--pyi_out={tmp_path}", f"--grpc_python_out={tmp_path}",
         *map(str, protos)],
        check=True, cwd=ROOT)
    fresh = tmp_path / "lats_pb"
    checked_in = ROOT / "protos" / "gen" / "lats_pb"
    generated = sorted(p.name for p in fresh.iterdir())
    assert generated == sorted(p.name for p in checked_in.iterdir() if p.name != "__init__.py"
                               and p.suffix in {".py", ".pyi"} and p.name != "__pycache__")
    drifted = [name for name in generated if not filecmp.cmp(fresh / name, checked_in / name,
                                                            shallow=False)]
    assert not drifted, f"generated code is stale: {drifted}; run `make protos` and commit"
