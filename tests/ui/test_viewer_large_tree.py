"""A tree of hundreds of nodes stays usable in the browser: it opens folded
below depth 3 (the answer's path left open), a text search reaches a node
deep inside a folded branch, and "expand all" draws every node."""

from __future__ import annotations

import asyncio
import time

import pytest

from lats_runtime.processes import start_service
from lats_pb import planner_pb2 as pb
from planner.runs import open_run_store

pytestmark = pytest.mark.timeout(120)
BRANCHING, DEPTH = 3, 5          # 1 + 3 + 9 + 27 + 81 + 243 = 364 nodes


def big_run() -> pb.Run:
    run = pb.Run(run_id="big", status=pb.RUN_STATUS_FAILED, task_id="synthetic/1",
                 created_at="2026-11-23T10:00:00+00:00")
    run.result.environment, run.result.method = "synthetic@1", "lats"
    run.result.status = pb.RUN_STATUS_FAILED
    run.result.answer_node_id = "0" + ".2" * DEPTH
    run.nodes.add(id="0", observation="the task", visits=200, value=0.4, lm_score=-1)
    frontier = ["0"]
    for depth in range(1, DEPTH + 1):
        grown = []
        for parent in frontier:
            for i in range(BRANCHING):
                node_id = f"{parent}.{i}"
                run.nodes.add(id=node_id, parent_id=parent, depth=depth, visits=depth,
                              value=i / BRANCHING, action=f"step {node_id}",
                              observation=f"state after {node_id}", lm_score=0.5, sc_score=0.3,
                              terminal=depth == DEPTH)
                grown.append(node_id)
        frontier = grown
    run.nodes[-5].observation = "the needle is here"
    return run


@pytest.fixture(scope="module")
def viewer(tmp_path_factory):
    db = tmp_path_factory.mktemp("big") / "runs.sqlite3"

    async def fill():
        store = open_run_store(str(db))
        await store.open()
        await store.put(big_run())
        await store.close()

    asyncio.run(fill())
    service = start_service("ui", ["ui", "--db", str(db)])
    yield service
    service.stop()


def rendered(browser) -> int:
    return int(browser.find_element("id", "tree").get_attribute("data-rendered") or 0)


def test_a_large_tree_opens_folded_searches_and_expands(viewer, browser, screenshot):
    from selenium.webdriver.common.by import By

    total = len(big_run().nodes)
    assert total == 364
    started = time.monotonic()
    browser.get(f"http://{viewer.address}/run?id=big")
    deadline = time.monotonic() + 30
    while rendered(browser) == 0 and time.monotonic() < deadline:
        time.sleep(0.1)
    first = rendered(browser)
    assert 0 < first < total / 2, first                 # folded below depth 3
    answer = "0" + ".2" * 5
    assert browser.find_elements(By.CSS_SELECTOR, f'g.node.on-path[data-id="{answer}"]')
    screenshot("viewer-large-tree-folded")

    needle = big_run().nodes[-5].id
    box = browser.find_element(By.ID, "search")
    box.send_keys("needle")
    box.send_keys("\n")
    while not browser.find_elements(By.CSS_SELECTOR, f'g.node.match[data-id="{needle}"]'):
        assert time.monotonic() < deadline, "the search did not reveal the match"
        time.sleep(0.1)
    assert browser.find_element(By.ID, "detail-id").text == needle
    assert browser.find_element(By.ID, "search-count").text == "1 / 1"

    browser.find_element(By.ID, "expand-all").click()
    while rendered(browser) != total:
        assert time.monotonic() < deadline, f"{rendered(browser)} of {total} drawn"
        time.sleep(0.1)
    browser.find_element(By.ID, "fit").click()
    screenshot("viewer-large-tree-expanded")
    assert time.monotonic() - started < 30
