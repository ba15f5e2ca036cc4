"""The conformance kit passes against a real WebShop server process."""

from __future__ import annotations

import subprocess

import pytest

from lats.processes import start_service
from tests.env.test_conformance_game24 import kit_command, kit_results

KIT_TASK = "fixed_0"


@pytest.fixture(scope="module")
def webshop_process(store):
    # `store` builds the catalog into the shared cache first, so the server opens it at once.
    service = start_service(
        "env", ["env", "webshop", "--session-ttl", "2", "--max-sessions", "64"], timeout=60)
    yield service
    service.stop()


@pytest.mark.timeout(180)
def test_webshop_server_passes_the_whole_kit(webshop_process, tmp_path):
    report = tmp_path / "kit.xml"
    command = kit_command(webshop_process.address, report)
    command[command.index("--task-id") + 1] = KIT_TASK
    run = subprocess.run(command, capture_output=True, text=True, timeout=170)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    results = kit_results(report)
    assert len(results) >= 45, "the kit ran fewer checks than it has"
    skipped = sorted(name for name, outcome in results.items() if outcome == "skipped")
    assert skipped == [], skipped
    for must_run in ("test_restore_reproduces_later_steps_exactly", "test_forks_are_independent",
                     "test_invalid_action_leaves_the_state_unchanged",
                     "test_grammar_examples_step_without_error"):
        assert results[must_run] == "passed", must_run
