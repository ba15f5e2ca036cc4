"""WatchRun: a run's snapshot, then the very events Solve streams, from the planner running it.

Real processes: game24, a scripted gateway whose calls take 0.1 s, and two
planners sharing one SQLite run store. A watcher joining mid-search gets a
snapshot holding exactly the events so far and then every later event, equal
to what the Solve client received; the other planner refuses to watch a run
it is not executing and names the planner that is; a finished run is its
stored record alone.
"""

from __future__ import annotations

import threading

import grpc
import pytest

from lats_runtime.processes import start_service
from lats_pb import planner_pb2 as pb
from lats_pb import planner_pb2_grpc as pb_grpc
from tests.e2e.test_game24_search import SCRIPT, TASK

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def services(tmp_path_factory):
    db = tmp_path_factory.mktemp("planner") / "runs.sqlite3"
    started = []
    try:
        for name, args in (
                ("env", ["env", "game24"]),
                ("gateway", ["gateway", "--backend", "scripted", "--script", str(SCRIPT),
                             "--latency", "0.1"])):
            started.append(start_service(name, args))
        gateway = started[1].address
        for name in ("planner-a", "planner-b"):
            started.append(start_service(name, ["planner", "--gateway", gateway, "--db", str(db),
                                                "--heartbeat", "0.3", "--lease", "10"]))
        yield {service.name: service for service in started}
    finally:
        for service in reversed(started):
            service.stop()


def stub(service):
    channel = grpc.insecure_channel(service.address)
    return channel, pb_grpc.PlannerStub(channel)


def test_a_watcher_sees_the_snapshot_then_the_same_events_as_solve(services):
    request = pb.SolveRequest(env_address=services["env"].address, task_id=TASK, run_id="watched",
                              config=pb.SearchConfig(method="lats_paper", n_samples=2, iterations=10,
                                                     max_depth=4,
                                                     seed=7))
    solved, watched, errors = [], [], []
    third_event = threading.Event()

    def run_solve():
        channel, planner = stub(services["planner-a"])
        with channel:
            for event in planner.Solve(request, timeout=60):
                solved.append(event)
                if event.seq == 3:
                    third_event.set()

    solver = threading.Thread(target=run_solve)
    solver.start()
    assert third_event.wait(30), "the search did not get going"
    channel, planner = stub(services["planner-a"])
    with channel:
        try:
            watched = list(planner.WatchRun(pb.WatchRunRequest(run_id="watched"), timeout=60))
        except grpc.RpcError as error:
            errors.append(error)
    solver.join(60)
    assert not errors
    snapshot = watched[0].snapshot
    events = [update.event for update in watched[1:]]
    assert snapshot.run_id == "watched" and snapshot.status == pb.RUN_STATUS_RUNNING
    assert snapshot.owner_address == services["planner-a"].address
    assert 3 <= snapshot.last_seq < len(solved)
    assert events == solved[snapshot.last_seq:]                 # the same messages, none lost
    assert events[-1].HasField("finished")
    # The snapshot holds what the events so far built.
    built = {}
    for event in solved[:snapshot.last_seq]:
        for kind in ("node_added", "node_evaluated", "terminal"):
            if event.HasField(kind):
                built[getattr(event, kind).id] = getattr(event, kind)
        if event.HasField("backpropagated"):
            built.update({n.id: n for n in event.backpropagated.path})
    shown = {n.id: n for n in snapshot.nodes if n.id != "0"}
    assert {k: (n.visits, n.value) for k, n in shown.items()} == \
        {k: (n.visits, n.value) for k, n in built.items() if k != "0"}


def test_another_planner_names_the_owner_and_a_finished_run_is_its_record(services):
    request = pb.SolveRequest(env_address=services["env"].address, task_id=TASK, run_id="owned",
                              config=pb.SearchConfig(method="lats_paper", n_samples=2, iterations=10,
                                                     max_depth=4,
                                                     seed=7))
    channel, planner = stub(services["planner-a"])
    other_channel, other = stub(services["planner-b"])
    with channel, other_channel:
        stream = planner.Solve(request, timeout=60)
        first = next(stream)
        assert first.run_id == "owned"
        with pytest.raises(grpc.RpcError) as refused:
            list(other.WatchRun(pb.WatchRunRequest(run_id="owned"), timeout=10))
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert services["planner-a"].address in refused.value.details()
        rest = list(stream)
        assert rest[-1].finished.status == pb.RUN_STATUS_SOLVED
        [only] = list(other.WatchRun(pb.WatchRunRequest(run_id="owned"), timeout=10))
        record = only.snapshot
        assert record.status == pb.RUN_STATUS_SOLVED and record.last_seq == rest[-1].seq
        assert record.result.answer_node_id and record.reflection_notes
        assert record.reflection_notes[0].node_id == next(
            e.reflection.node_id for e in rest if e.HasField("reflection"))
        for bad, code in (("", grpc.StatusCode.INVALID_ARGUMENT),
                          ("nobody", grpc.StatusCode.NOT_FOUND)):
            with pytest.raises(grpc.RpcError) as error:
                list(other.WatchRun(pb.WatchRunRequest(run_id=bad), timeout=10))
            assert error.value.code() == code
