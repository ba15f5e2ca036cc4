"""Our environments as OpenEnv environments (`lats serve openenv NAME`).

Real server processes (openenv-core's own app over HTTP and WebSocket) are
driven by OpenEnv's own clients: the untyped `GenericEnvClient` and the typed
`LatsEnv` built on OpenEnv's `EnvClient`. Game of 24 is played through
reset, step and state, with a snapshot taken on one replica and continued
on another, the continued session showing the whole episode; the code runner, HotPotQA and WebShop each play an episode.
"""

from __future__ import annotations

import base64

import httpx
import pytest
from openenv.core.generic_client import GenericEnvClient

from lats_openenv import LatsAction, LatsEnv
from lats_pb import environment_pb2

from env_servers.wiki.index import build_index
from env_servers.wiki.settings import DEFAULT_DISTRACTOR_FILE
from lats_runtime.processes import start_service
from tests.kit import services_together

KEY = "openenv-replicas-share-this-key"
REFUSED = "4 + 4 = 8 (left: 5 6 8 10)"          # game24/900 has only one 4
WAY = ["6 * 5 = 30 (left: 4 10 30)", "30 - 10 = 20 (left: 4 20)", "20 + 4 = 24 (left: 24)",
       "Answer: 6 * 5 - 10 + 4 = 24"]


def _url(service) -> str:
    return f"http://{service.address}"


@pytest.fixture(scope="module")
def game24_replicas():
    with services_together("openenv-game24", ["openenv", "game24", "--snapshot-key", KEY]) as (
            first, second):
        yield _url(first), _url(second)


def test_openenv_clients_play_game24_and_continue_a_snapshot_on_another_replica(
        game24_replicas):
    here, there = game24_replicas
    with GenericEnvClient(base_url=here).sync() as env:
        started = env.reset(task_id="game24/900")
        assert started.observation["text"] == "4 5 6 10" and not started.done
        refused = env.step({"text": REFUSED})
        assert refused.observation["invalid_action"] and refused.reward == 0 and not refused.done
        assert "only one is left" in refused.observation["text"]
        for action in WAY[:2]:
            stepped = env.step({"text": action})
        assert stepped.observation["text"] == "left: 4 20" and stepped.observation["steps"] == 3
        state = env.state()
        assert state["actions"] == [REFUSED, *WAY[:2]]
        assert state["step_count"] == 3 and state["score"] is None
        saved = state["snapshot"]
        result, history = saved.split(".")
        last = environment_pb2.StepResult.FromString(base64.b64decode(result))
        assert last.observation == "left: 4 20" and last.snapshot.blob.startswith(b"LATS")
        wrong = env.step({"text": "20 - 4 = 16 (left: 16)"})     # a dead end, on this replica
        assert wrong.done and wrong.reward == 0
        assert env.state()["success"] is False

    with LatsEnv(base_url=there).sync() as other:               # the typed client
        resumed = other.reset(snapshot=saved)
        assert resumed.observation.text == "left: 4 20" and resumed.observation.steps == 3
        for action in WAY[2:]:
            result = other.step(LatsAction(text=action))
        assert result.done and result.reward == 1.0
        assert "Correct" in result.observation.text
        final = other.state()
        assert final.success is True and final.score == 1.0 and final.step_count == 5
        assert final.total_reward == 1.0

        last.snapshot.blob = last.snapshot.blob[:-1] + b"\x00"
        tampered = f"{base64.b64encode(last.SerializeToString()).decode()}.{history}"
        with pytest.raises(RuntimeError, match="signature check"):
            other.reset(snapshot=tampered)
        with pytest.raises(RuntimeError, match="not one state"):
            other.reset(snapshot=base64.b64encode(b"\xff\xff\xff").decode())
        with pytest.raises(RuntimeError, match="unknown reset argument"):
            other.reset(level="hard")
        assert other.reset(seed=1).observation.task_id == other.reset(seed=1).observation.task_id


def test_a_session_continued_from_a_snapshot_shows_the_whole_episode(game24_replicas):
    here, there = game24_replicas
    with LatsEnv(base_url=here).sync() as env:
        env.reset(task_id="game24/900")
        first = env.step(LatsAction(text=WAY[0])).observation
        saved = env.state().snapshot                          # one step in
        env.step(LatsAction(text=WAY[1]))                     # on, then back to it

    with LatsEnv(base_url=there).sync() as other:
        resumed = other.reset(snapshot=saved).observation
        assert resumed.text == "left: 4 10 30" and resumed.steps == 1
        assert resumed.info == first.info and resumed.info    # the step's info, shown again
        assert other.state().actions == WAY[:1] and other.state().step_count == 1
        for action in WAY[1:]:
            result = other.step(LatsAction(text=action))
        state = other.state()
        assert state.actions == WAY and state.step_count == 4 == result.observation.steps
        assert state.total_reward == 1.0 and state.success is True

        again = other.reset(snapshot=state.snapshot)          # an ended episode, continued
        assert again.done and other.state().success is True
        assert other.state().actions == WAY

        result, history = saved.split(".")
        shortened = base64.b64encode(base64.b64decode(history).replace(
            f'"{WAY[0]}"'.encode(), b"")).decode()
        with pytest.raises(RuntimeError, match="names 0 action"):
            other.reset(snapshot=f"{result}.{shortened}")
        with pytest.raises(RuntimeError, match="not one state"):
            other.reset(snapshot=result)                      # its history cut off


def test_the_metadata_and_schema_say_what_the_lats_side_adds(game24_replicas):
    here, _ = game24_replicas
    metadata = httpx.get(f"{here}/metadata", timeout=10, trust_env=False).json()
    assert metadata["name"] == "game24" and metadata["version"] == "1.0.0"
    readme = metadata["readme_content"]
    assert "reset(snapshot=...)" in readme and "Answer: (6 - 4) * (4 + 8) = 24" in readme
    assert " tasks (split `test`)" in readme
    schema = httpx.get(f"{here}/schema", timeout=10, trust_env=False).json()
    assert schema["action"]["required"] == ["text"]
    assert {"text", "invalid_action", "steps", "truncated"} <= set(schema["observation"]["properties"])


@pytest.fixture
def wiki_cache(tmp_path):
    index = tmp_path / "hotpotqa.sqlite3"
    build_index([DEFAULT_DISTRACTOR_FILE], index)
    return {"LATS_WIKI_INDEX": str(index), "LATS_WIKI_CACHE_DIR": str(tmp_path / "cache")}


@pytest.mark.timeout(240)
def test_hotpotqa_is_played_through_openenv_and_scored_in_the_state(wiki_cache):
    service = start_service("openenv-hotpotqa", ["openenv", "hotpotqa"], env=wiki_cache,
                            timeout=120)
    try:
        with LatsEnv(base_url=_url(service)).sync() as env:
            question = env.reset(task_id="hotpotqa/0").observation
            assert "Scott Derrickson" in question.text
            searched = env.step(LatsAction(text="Search[Scott Derrickson]"))
            assert "Scott Derrickson" in searched.observation.text and not searched.done
            answered = env.step(LatsAction(text="Finish[yes]"))
            assert answered.done and answered.reward == 0.0      # honest: no reward leaks
            state = env.state()
            assert state.success is True and state.score == 1.0
    finally:
        assert service.stop() == 0, service.log_tail()


@pytest.mark.timeout(300)
def test_webshop_is_played_through_openenv():
    service = start_service("openenv-webshop", ["openenv", "webshop"], timeout=240)
    try:
        with GenericEnvClient(base_url=_url(service)).sync() as env:
            first = env.reset(task_id="fixed_0").observation
            assert first["text"].startswith("WebShop") and "[Search]" in first["text"]
            results = env.step({"text": "search[gluten free vegetarian bacon]"})
            assert "Total results" in results.observation["text"] and not results.done
            assert env.state()["step_count"] == 1
    finally:
        assert service.stop() == 0, service.log_tail()


@pytest.mark.timeout(240)
def test_the_code_runner_is_played_through_openenv():
    service = start_service("openenv-coderunner", ["openenv", "coderunner"],
                            env={"LATS_CODERUNNER_SANDBOX": "bwrap"}, timeout=120)
    try:
        with LatsEnv(base_url=_url(service)).sync() as env:
            task = env.reset(task_id="HumanEval/53", options={
                "internal_tests": "assert add(1, 2) == 3\nassert add(2, 2) == 4"}).observation
            assert "def add" in task.text
            wrong = env.step(LatsAction(text="```python\ndef add(x, y):\n    return x * y\n```"))
            assert wrong.reward == 0.25 and not wrong.done
            assert "Tests failed" in wrong.observation.text
            right = env.step(LatsAction(text="```python\ndef add(x, y):\n    return x + y\n```"))
            assert right.reward == 1.0
            state = env.state()
            assert state.step_count == 2 and len(state.actions) == 2 and state.snapshot
    finally:
        assert service.stop() == 0, service.log_tail()
