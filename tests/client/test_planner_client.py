"""The Python client (lats_client) against real services: a Game-of-24 server,
a scripted gateway and a planner as separate processes.

The blocking `Planner` and the asyncio `AsyncPlanner` solve game24/900 with
typed events and a typed result, read the stored run and list runs; errors
name the planner and its address; and the `lats` command's solve, runs and
bench go through this same client.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys

import pytest

from lats_runtime.processes import running_services
from tests.e2e.test_game24_search import SCRIPT, TASK

pytestmark = pytest.mark.timeout(120)
PAPER = dict(method="lats_paper", n=2, k=10, depth=4, seed=7)   # what the script was written for


@pytest.fixture(scope="module")
def services(tmp_path_factory):
    db = tmp_path_factory.mktemp("client") / "runs.sqlite3"
    specs = [
        ("env", ["env", "game24"]),
        ("gateway", ["gateway", "--backend", "scripted", "--script", str(SCRIPT)]),
        ("planner", ["planner", "--gateway", "{gateway}", "--db", str(db)]),
    ]
    with running_services(specs) as running:
        yield running


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_blocking_client_solves_game24_with_typed_events_and_result(services):
    from lats_client import (Backpropagated, Finished, IterationStarted, NodeAdded, Planner,
                             ReflectionAdded, Started)

    with Planner(services["planner"].address) as planner:
        search = planner.solve(services["env"].address, TASK, **PAPER)
        events = list(search)
        result = search.result()
        run = planner.run(search.run_id)
        listed = planner.runs(environment="game24", status="solved")

    assert isinstance(events[0], Started) and isinstance(events[-1], Finished)
    assert [event.seq for event in events] == list(range(1, len(events) + 1))
    started = events[0]
    assert started.task_id == TASK and started.environment.startswith("game24@")
    assert started.config["n_samples"] == 2 and started.config["method"] == "lats_paper"
    assert started.reward_mode == "none" and started.task.startswith("4 5 6 10")
    assert sum(isinstance(e, IterationStarted) for e in events) == result.iterations == 2
    added = {e.node.id: e.node for e in events if isinstance(e, NodeAdded)}
    assert added["0.1"].action == "6 * 5 = 30 (left: 4 10 30)" and added["0.1"].depth == 1
    reflections = [e for e in events if isinstance(e, ReflectionAdded)]
    assert reflections[0].node_id == "0.0.0.0" and "6 * 5" in reflections[0].text
    first_backprop = next(e for e in events if isinstance(e, Backpropagated))
    assert first_backprop.reward == 0 and [n.id for n in first_backprop.path][:2] == ["0", "0.0"]

    assert result.solved and result.success and result.status == "solved"
    assert result.answer == "Answer: 6 * 5 - 10 + 4 = 24" == result.actions[-1]
    assert result.score.score == 1 and result.score.success
    assert result.usage.calls > 0 and result.usage.total_tokens > 0
    assert result.method == "lats_paper" and result.model.startswith("scripted")
    assert result.task_id == TASK and result.config["iterations"] == 10

    assert run.run_id == search.run_id and run.status == "solved" and not run.running
    assert len(run.nodes) == result.nodes and run.result == result
    assert [n.id for n in run.answer_path()][-1] == result.answer_node_id
    assert run.node(result.answer_node_id).action == result.answer
    assert run.reflections[0].node_id == "0.0.0.0"
    assert search.run_id in [r.run_id for r in listed]
    assert all(r.nodes == () for r in listed), "listed runs come without their trees"


async def test_the_asyncio_client_solves_watches_and_pages(services):
    from lats_client import AsyncPlanner, Finished, Snapshot

    async with AsyncPlanner(services["planner"].address) as planner:
        searches = [planner.solve(services["env"].address, TASK, **PAPER) for _ in range(2)]
        results = await asyncio.gather(*(search.result() for search in searches))
        assert [r.status for r in results] == ["solved", "solved"]
        run_ids = {search.run_id for search in searches}

        # A finished run, watched: its stored record, as one Snapshot.
        watched = [event async for event in planner.watch(searches[0].run_id)]
        assert len(watched) == 1 and isinstance(watched[0], Snapshot)
        assert watched[0].run.status == "solved" and watched[0].run.nodes

        # Pages of one run each, newest first, until none follows.
        seen, offset = [], 0
        while offset is not None:
            page = await planner.runs_page(page_size=1, offset=offset, method="lats_paper")
            assert len(page.runs) == 1
            seen.append(page.runs[0].run_id)
            offset = page.next_offset
        assert run_ids <= set(seen) and len(seen) == len(set(seen))
        assert seen == [r.run_id for r in await planner.runs(limit=None, method="lats_paper")]
        facets = await planner.facets()
        assert "lats_paper" in facets.methods and any(e.startswith("game24@")
                                                       for e in facets.environments)

        # A search streamed event by event ends with Finished, like the blocking one.
        last = None
        async for event in planner.solve(services["env"].address, TASK, **PAPER):
            last = event
        assert isinstance(last, Finished) and last.result.solved


def test_errors_name_the_planner_and_say_what_failed(services):
    from lats_client import (InvalidRequest, LatsError, Planner, RunNotFound,
                             ServiceUnavailable, TaskNotFound)

    port = _closed_port()
    with Planner(f"127.0.0.1:{port}", timeout=5) as nobody:
        with pytest.raises(ServiceUnavailable) as down:
            nobody.solve(services["env"].address, TASK).result()
    assert f"planner at 127.0.0.1:{port}: UNAVAILABLE" in str(down.value)

    with Planner(services["planner"].address) as planner:
        with pytest.raises(RunNotFound) as missing:
            planner.run("no-such-run")
        assert f"planner at {services['planner'].address}: NOT_FOUND" in str(missing.value)
        with pytest.raises(TaskNotFound, match="is not a task of game24"):
            planner.solve(services["env"].address, "game24/99999").result()
        assert not [r for r in planner.runs(limit=None) if r.task_id == "game24/99999"], \
            "a Solve that cannot start stores no run"
        with pytest.raises(InvalidRequest, match="page_token"):
            planner.runs_page(offset=-1)
        with pytest.raises(InvalidRequest, match="n_samples"):
            planner.solve(services["env"].address, TASK, n=1000).result()
        with pytest.raises(TypeError, match="no field 'bogus'"):
            planner.solve(services["env"].address, TASK, bogus=1)
        with pytest.raises(ValueError, match="unknown run status"):
            planner.runs(status="won")
        assert issubclass(RunNotFound, LatsError)


def test_the_command_line_goes_through_the_same_client(services):
    """`lats solve` and `lats runs --planner` go through lats_client: its typed
    errors reach the user (service and address named), its runs are the planner's.
    (`lats bench` runs its jobs through AsyncPlanner: tests/bench.)"""
    port = _closed_port()
    down = subprocess.run([sys.executable, "-m", "lats", "solve", "--planner",
                           f"127.0.0.1:{port}", "--env", services["env"].address,
                           "--task", TASK], capture_output=True, text=True, timeout=60)
    assert down.returncode == 2
    assert f"error: planner at 127.0.0.1:{port}: UNAVAILABLE" in down.stderr

    solved = subprocess.run([sys.executable, "-m", "lats", "solve", "--planner",
                             services["planner"].address, "--env", services["env"].address,
                             "--task", TASK, "--method", "lats_paper", "-n", "2", "-k", "10",
                             "-d", "4", "--seed", "7", "--json"],
                            capture_output=True, text=True, timeout=60)
    assert solved.returncode == 0, solved.stderr
    run_id = solved.stdout.split('"runId": "')[1].split('"')[0]
    listed = subprocess.run([sys.executable, "-m", "lats", "runs", "list", "--planner",
                             services["planner"].address, "--task", "900", "--json"],
                            capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    assert f'"run_id": "{run_id}"' in listed.stdout


STRLEN = ("```python\ndef strlen(string: str) -> int:\n    return len(string)\n```\n"
          "Thus the correctness score is 9")


def readme_example() -> str:
    from tests.deploy.compose import ROOT

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    begin, end = (text.index(f"<!-- client-example: {edge} -->") for edge in ("begin", "end"))
    return text[begin:end].split("```python\n", 1)[1].split("```", 1)[0]


def test_the_readme_example_runs_against_the_demos_kind_of_services(tmp_path):
    """The README's ten lines, as written, against the services `make demo` starts (the
    code runner, a gateway, a planner; a scripted model in place of the embedded one)."""
    example = readme_example()
    assert len(example.strip().splitlines()) <= 11
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"rules": [], "default": STRLEN}))
    specs = [("env", ["env", "coderunner"]),
             ("gateway", ["gateway", "--backend", "scripted", "--script", str(script)]),
             ("planner", ["planner", "--gateway", "{gateway}", "--db",
                          str(tmp_path / "runs.sqlite3")])]
    sandbox = {"LATS_CODERUNNER_SANDBOX": "process", "LATS_CODERUNNER_ALLOW_INSECURE_SANDBOX": "1"}
    with running_services(specs, env=sandbox) as running:
        code = (example.replace("127.0.0.1:PLANNER", running["planner"].address)
                       .replace("127.0.0.1:ENV", running["env"].address))
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("0.0 1.0 ['Tested passed:'")
    assert lines[-2].startswith("solved True ") and lines[-2].endswith(" calls")
    assert lines[-1].startswith("['") and len(eval(lines[-1])) == 1   # noqa: S307 - our own output
