"""Replicas of every service, as real processes, with one run store in PostgreSQL.

Two game24 replicas (one snapshot key), two scripted gateways whose calls
take a real model's time, two planners sharing a PostgreSQL run store. The
planners reach each service through a list of its replicas, balanced
round-robin. Killing replicas mid-search must not change the search; killing a
planner must leave its run INTERRUPTED, seen from the other planner, and a
bench over both planners must still finish every job.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid

import grpc
import psycopg
import pytest

from lats_runtime.processes import start_service
from lats_pb import planner_pb2 as pb
from lats_pb import planner_pb2_grpc as pb_grpc
from tests.bench.conftest import write_script
from tests.e2e.test_game24_search import SCRIPT, TASK

pytestmark = pytest.mark.timeout(180)
LATENCY = "0.15"          # seconds per model call: time to kill replicas mid-search


@pytest.fixture
def database(postgres_url):
    name = f"replicas_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    return postgres_url.rsplit("/", 1)[0] + "/" + name


class Replicas:
    """Starts services and stops every one still running at the end."""

    def __init__(self):
        self.started = []

    def start(self, name, args):
        service = start_service(name, args, timeout=60)
        self.started.append(service)
        return service

    def pair(self, name, args):
        return [self.start(f"{name}-{i}", args) for i in (1, 2)]

    def stop_all(self):
        for service in reversed(self.started):
            service.stop()


@pytest.fixture
def replicas():
    running = Replicas()
    yield running
    running.stop_all()


def start_suite(replicas, database, script=SCRIPT):
    envs = replicas.pair("env", ["env", "game24", "--snapshot-key", "replicas-key"])
    gateways = replicas.pair("gateway", ["gateway", "--backend", "scripted", "--script",
                                         str(script), "--latency", LATENCY])
    gateway_list = ",".join(g.address for g in gateways)
    planners = replicas.pair("planner", ["planner", "--gateway", gateway_list, "--db", database,
                                         "--heartbeat", "0.5", "--lease", "3"])
    return envs, gateways, planners


def addresses(services) -> str:
    return ",".join(s.address for s in services)


def request(envs) -> pb.SolveRequest:
    return pb.SolveRequest(env_address=addresses(envs), task_id=TASK, config=pb.SearchConfig(
        method="lats_paper", n_samples=2, iterations=10, max_depth=4, seed=7))


def solve(planner, solve_request, on_event=None) -> list[pb.SearchEvent]:
    events = []
    with grpc.insecure_channel(planner.address) as channel:
        for event in pb_grpc.PlannerStub(channel).Solve(solve_request, timeout=120):
            events.append(event)
            if on_event is not None:
                on_event(event)
    return events


def get_run(planner, run_id) -> pb.Run:
    with grpc.insecure_channel(planner.address) as channel:
        return pb_grpc.PlannerStub(channel).GetRun(pb.GetRunRequest(run_id=run_id), timeout=10)


def tree(run: pb.Run):
    return [(n.id, n.parent_id, n.action, n.observation, n.visits, round(n.value, 9),
             round(n.lm_score, 9), round(n.sc_score, 9), n.terminal) for n in run.nodes]


def test_killing_an_env_replica_and_a_gateway_mid_search_changes_nothing(replicas, database):
    envs, gateways, planners = start_suite(replicas, database)
    calm = solve(planners[0], request(envs))
    assert calm[-1].finished.status == pb.RUN_STATUS_SOLVED

    killed = []

    def kill_after_the_first_backpropagation(event):
        if event.HasField("backpropagated") and not killed:
            for service in (envs[0], gateways[0]):
                service.process.kill()
                service.process.wait()
                killed.append(service.name)

    stormy = solve(planners[0], request(envs), kill_after_the_first_backpropagation)
    assert killed == ["env-1", "gateway-1"]
    result = stormy[-1].finished
    assert result.status == pb.RUN_STATUS_SOLVED, result.error
    # The same search: same tree, same values, same answer, same model use.
    calm_run, stormy_run = (get_run(planners[1], events[0].run_id) for events in (calm, stormy))
    assert tree(stormy_run) == tree(calm_run) and len(stormy_run.nodes) > 5
    assert list(result.actions) == list(calm[-1].finished.actions)
    assert result.usage.calls == calm[-1].finished.usage.calls
    assert result.score.success


def test_a_killed_planner_leaves_its_run_interrupted_and_the_bench_finishes(
        replicas, database, tmp_path):
    envs, _, planners = start_suite(replicas, database,
                                    write_script(tmp_path / "script.json"))
    # A long search on the first planner, which dies in the middle of it.
    long_search = pb.SolveRequest(env_address=addresses(envs), task_id="game24/901",
                                  config=pb.SearchConfig(n_samples=3, iterations=50, seed=1))
    with grpc.insecure_channel(planners[0].address) as channel:
        stream = pb_grpc.PlannerStub(channel).Solve(long_search, timeout=120)
        run_id = next(stream).run_id
        for event in stream:
            if event.HasField("backpropagated"):
                break
        # the tree is stored as it grows, at each heartbeat
        wait_until(lambda: len(get_run(planners[1], run_id).nodes) > 1)
        planners[0].process.kill()
        planners[0].process.wait()
    seen = get_run(planners[1], run_id)
    assert seen.status == pb.RUN_STATUS_RUNNING and seen.owner.split(":")[1] == str(
        planners[0].process.pid) and len(seen.nodes) > 1   # its tree, stored as it grew
    deadline = time.monotonic() + 15
    while seen.status == pb.RUN_STATUS_RUNNING and time.monotonic() < deadline:
        time.sleep(0.5)
        seen = get_run(planners[1], run_id)
    assert seen.status == pb.RUN_STATUS_INTERRUPTED
    assert "stopped renewing its lease" in seen.result.error

    # A bench over the surviving planner and a new one; one dies mid-bench.
    replacement = replicas.start("planner-3", ["planner", "--gateway", gateway_list(replicas),
                                               "--db", database, "--heartbeat", "0.5",
                                               "--lease", "3"])
    out = tmp_path / "bench"
    bench = subprocess.Popen(
        [sys.executable, "-m", "lats", "bench", "--planner",
         addresses([planners[1], replacement]), "--env", addresses(envs),
         "--task", "game24/900", "--task", "game24/901", "-m", "lats", "-m", "reflexion",
         "-k", "8,16", "--concurrency", "4", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    victim = planners[1]
    lost_run = wait_for_a_running_run_of(victim, database)
    victim.process.kill()
    output, _ = bench.communicate(timeout=150)
    assert bench.returncode == 0, output[-3000:]
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(records) == 8 and len({r["job_key"] for r in records}) == 8
    assert not [r for r in records if r["status"] == "error"], output[-3000:]
    # the run the victim held is INTERRUPTED (not finished by a race), and its job ran again
    wait_until(lambda: get_run(replacement, lost_run).status == pb.RUN_STATUS_INTERRUPTED)
    assert sum(r["restarts"] for r in records) >= 1      # the victim's job ran again
    assert lost_run not in {r["run_id"] for r in records}


def wait_until(condition, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.1)


def gateway_list(replicas) -> str:
    return addresses([s for s in replicas.started if s.name.startswith("gateway")])


def wait_for_a_running_run_of(planner, database, timeout: float = 30.0,
                              under_way: float = 0.6) -> str:
    """Blocks until `planner` (by its pid in the owner name) has had a run RUNNING for
    `under_way` seconds (so its client has its run id), and returns that run's id."""
    deadline = time.monotonic() + timeout
    first_seen: dict[str, float] = {}
    with psycopg.connect(database, autocommit=True) as db:
        while time.monotonic() < deadline:
            now = time.monotonic()
            running = [run_id for run_id, owner in db.execute(
                "SELECT run_id, owner FROM runs WHERE status = %s", (pb.RUN_STATUS_RUNNING,))
                if owner.split(":")[1] == str(planner.process.pid)]
            for run_id in running:
                if now - first_seen.setdefault(run_id, now) >= under_way:
                    return run_id
            time.sleep(0.05)
    raise AssertionError(f"{planner.name} never ran a search for {under_way}s")


def test_a_planner_shut_down_mid_search_stores_its_run_interrupted(replicas, tmp_path):
    db = str(tmp_path / "runs.sqlite3")      # the embedded default store
    env = replicas.start("env", ["env", "game24"])
    gateway = replicas.start("gateway", ["gateway", "--backend", "scripted", "--script",
                                         str(write_script(tmp_path / "script.json")),
                                         "--latency", LATENCY])
    planner = replicas.start("planner", ["planner", "--gateway", gateway.address, "--db", db])
    long_search = pb.SolveRequest(env_address=env.address, task_id="game24/901",
                                  config=pb.SearchConfig(n_samples=3, iterations=200, seed=1))
    with grpc.insecure_channel(planner.address) as channel:
        stream = pb_grpc.PlannerStub(channel).Solve(long_search, timeout=120)
        run_id = next(stream).run_id
        planner.process.terminate()                  # SIGTERM: a graceful shutdown
        with pytest.raises(grpc.RpcError):
            for _ in stream:
                pass
    assert planner.process.wait(30) == 0
    successor = replicas.start("planner-2", ["planner", "--gateway", gateway.address, "--db", db])
    run = get_run(successor, run_id)
    assert run.status == pb.RUN_STATUS_INTERRUPTED           # at once, not after a lease
    assert "shut down during the search" in run.result.error and len(run.nodes) >= 1
