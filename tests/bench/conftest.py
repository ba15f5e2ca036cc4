"""Services for the bench tests: game24, a scripted gateway, a planner (processes).

The script is tests/methods/game24_methods.json (task game24/900 for every
method) followed by catch-all rules for any other task: act answers with
invalid steps (so LATS keeps expanding until k or d is spent), value with a
middling score, reflect with a generic lesson.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lats_runtime.processes import running_services

METHODS_SCRIPT = Path(__file__).parents[1] / "methods" / "game24_methods.json"
CATCH_ALL = [
    {"name": "any act", "purpose": "act",
     "responses": ["1 + 1 = 2 (left: 2)", "2 + 2 = 4 (left: 4)", "3 + 3 = 6 (left: 6)"]},
    {"name": "any value", "purpose": "value", "responses": ["Thus the correctness score is 5"]},
    {"name": "any reflect", "purpose": "reflect", "responses": ["Use the numbers given."]},
    {"name": "any cot", "purpose": "cot", "responses": [" 1 + 1 = 2 (left: 2)\n"]},
]


def write_script(path: Path) -> Path:
    script = json.loads(METHODS_SCRIPT.read_text())
    script["rules"] += CATCH_ALL
    path.write_text(json.dumps(script))
    return path


@pytest.fixture(scope="module")
def services(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bench-services")
    specs = [
        ("env", ["env", "game24"]),
        ("gateway", ["gateway", "--backend", "scripted", "--script",
                     str(write_script(tmp / "script.json"))]),
        ("planner", ["planner", "--gateway", "{gateway}", "--db", str(tmp / "runs.sqlite3")]),
    ]
    with running_services(specs) as running:
        running["planner_db"] = tmp / "runs.sqlite3"
        running["script"] = tmp / "script.json"
        yield running
