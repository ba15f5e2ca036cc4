"""The run viewer in a real browser (headless Chromium) over real services.

game24, a scripted gateway whose calls take 0.4 s, a planner that stores a
run's tree only every 30 s, and the viewer (`lats serve ui`) as processes.
A finished run's page shows every stored node with its N and V, the answer
path and the details of a node; a run opened while it searches grows on the
page from the planner's live events (the store holds no tree yet) and ends
as the store records it. Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import threading
import time

import grpc
import pytest

from lats_runtime.processes import running_services, start_service
from lats_pb import planner_pb2 as pb
from lats_pb import planner_pb2_grpc as pb_grpc
from tests.e2e.test_game24_search import SCRIPT, TASK

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def services(tmp_path_factory):
    db = tmp_path_factory.mktemp("planner") / "runs.sqlite3"
    specs = [
        ("env", ["env", "game24"]),
        ("gateway", ["gateway", "--backend", "scripted", "--script", str(SCRIPT),
                     "--latency", "0.4"]),
        ("planner", ["planner", "--gateway", "{gateway}", "--db", str(db),
                     "--heartbeat", "30", "--lease", "120"]),
    ]
    with running_services(specs) as running:
        viewer = start_service("ui", ["ui", "--db", str(db), "--poll", "0.2"])
        try:
            yield {**running, "ui": viewer}
        finally:
            viewer.stop()


def request(services, run_id: str) -> pb.SolveRequest:
    return pb.SolveRequest(env_address=services["env"].address, task_id=TASK, run_id=run_id,
                           config=pb.SearchConfig(method="lats_paper", n_samples=2, iterations=10,
                                                  max_depth=4, seed=7))


def get_run(services, run_id: str) -> pb.Run:
    with grpc.insecure_channel(services["planner"].address) as channel:
        return pb_grpc.PlannerStub(channel).GetRun(pb.GetRunRequest(run_id=run_id), timeout=10)


def wait_for(condition, timeout: float = 30.0, what: str = "the page"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def shown_nodes(browser) -> dict[str, str]:
    """node id -> its label on the page ("ID  N=.. V=..")."""
    return browser.execute_script(
        "const out = {}; document.querySelectorAll('g.node').forEach(g => "
        "{ out[g.dataset.id] = g.querySelector('text.label').textContent; }); return out;")


def expected_labels(run: pb.Run) -> dict[str, str]:
    return {n.id: f"{n.id}  N={n.visits} V={n.value:.3f}" for n in run.nodes}


def test_a_stored_run_shows_its_tree_values_answer_and_details(services, browser, screenshot):
    from selenium.webdriver.common.by import By

    with grpc.insecure_channel(services["planner"].address) as channel:
        events = list(pb_grpc.PlannerStub(channel).Solve(request(services, "stored"), timeout=90))
    assert events[-1].finished.status == pb.RUN_STATUS_SOLVED
    stored = get_run(services, "stored")
    browser.get(f"http://{services['ui'].address}/run?id=stored")
    wait_for(lambda: len(shown_nodes(browser)) == len(stored.nodes), what="the tree")
    assert shown_nodes(browser) == expected_labels(stored)

    answer = stored.result.answer_node_id
    path = browser.execute_script(
        "return [...document.querySelectorAll('g.node.on-path')].map(g => g.dataset.id);")
    assert answer in path and "0" in path and len(path) == answer.count(".") + 1
    assert browser.find_elements(By.CSS_SELECTOR, f'g.node.success[data-id="{answer}"]')
    assert browser.find_element(By.ID, "run-status").text == "solved"
    assert browser.find_element(By.ID, "s-score").text.startswith("1 (success yes)")
    assert "V = 0.5·LM + 0.5·SC" in browser.find_element(By.ID, "s-value").text

    evaluated = next(n for n in stored.nodes if n.lm_score >= 0 and n.depth == 2)
    browser.find_element(By.CSS_SELECTOR,
                         f'g.node[data-id="{evaluated.id}"] text.label').click()
    detail = lambda name: browser.find_element(By.ID, f"detail-{name}").text  # noqa: E731
    assert detail("id") == evaluated.id
    assert detail("visits") == str(evaluated.visits)
    assert detail("value") == f"{evaluated.value:.3f}"
    assert detail("lm") == f"{evaluated.lm_score:.3f}"
    assert detail("second-label") == "self-consistency SC (in V)"
    assert detail("second").startswith(f"{evaluated.sc_score:.3f} ({evaluated.sample_count} of 2")
    assert detail("action") == evaluated.action
    reflected = stored.reflection_notes[0].node_id
    assert browser.find_element(By.CSS_SELECTOR, f'g.node[data-id="{reflected}"] text.note').text
    screenshot("viewer-stored-run")

    # Search marks matches; collapsing hides a subtree and says how much.
    box = browser.find_element(By.ID, "search")
    box.send_keys("dead end")
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "g.node.match"), what="a match")
    assert [g.get_attribute("data-id") for g in
            browser.find_elements(By.CSS_SELECTOR, "g.node.match")] == [reflected]
    browser.find_element(By.CSS_SELECTOR, 'g.node[data-id="0.0"] text.toggle').click()
    wait_for(lambda: len(shown_nodes(browser)) < len(stored.nodes), what="the collapse")
    assert browser.find_element(By.CSS_SELECTOR, 'g.node[data-id="0.0"] text.toggle').text == "+2"
    # Nothing on the page came from anywhere but the viewer.
    origins = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => new URL(e.name).host);")
    assert set(origins) <= {services["ui"].address}
    severe = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not severe, severe

    browser.get(f"http://{services['ui'].address}/")
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, 'tr[data-run-id="stored"]'),
             what="the runs list")
    row = browser.find_element(By.CSS_SELECTOR, 'tr[data-run-id="stored"]').text
    assert "solved" in row and "game24@" in row and "lats" in row
    screenshot("viewer-runs-list")


def test_a_running_search_grows_on_the_page_from_live_events(services, browser, screenshot):
    from selenium.webdriver.common.by import By

    events: list[pb.SearchEvent] = []
    started = threading.Event()

    def search():
        with grpc.insecure_channel(services["planner"].address) as channel:
            for event in pb_grpc.PlannerStub(channel).Solve(request(services, "live"),
                                                            timeout=120):
                events.append(event)
                started.set()

    solver = threading.Thread(target=search)
    solver.start()
    try:
        assert started.wait(30)
        assert len(get_run(services, "live").nodes) >= 0     # GetRun answers a live run
        browser.get(f"http://{services['ui'].address}/run?id=live")
        wait_for(lambda: browser.find_element(By.TAG_NAME, "body").get_attribute("data-live"),
                 what="the event stream")
        counts = []
        while solver.is_alive() and not any(e.HasField("finished") for e in events):
            counts.append(len(shown_nodes(browser)))
            if len(counts) == 15:
                screenshot("viewer-live-run")
            time.sleep(0.2)
        grown_while_running = [c for c in counts if c >= 3]
        assert grown_while_running and max(counts) > min(counts), counts
    finally:
        solver.join(120)
    assert events[-1].finished.status == pb.RUN_STATUS_SOLVED
    wait_for(lambda: browser.find_element(By.ID, "run-status").text == "solved",
             what="the end of the run")
    wait_for(lambda: browser.find_element(By.TAG_NAME, "body").get_attribute("data-live")
             == "ended", what="the stream's end")
    final = get_run(services, "live")
    assert shown_nodes(browser) == expected_labels(final)
    screenshot("viewer-live-run-ended")
