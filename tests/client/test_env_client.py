"""The environment client (lats_client.EnvClient) against a real Game-of-24 server
process: typed descriptions, task pages, states and transitions; reverting to an
earlier state gives the same results; typed errors that name the environment,
its address and what to fix (an unknown task, an ended episode, arguments the
client cannot send, no server)."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from lats_client import (Description, EnvClient, EpisodeEnded, InvalidRequest, InvalidSetting,
                         LatsError, ServiceUnavailable, State, TaskNotFound, Transition)
from lats_runtime.processes import start_service

pytestmark = pytest.mark.timeout(120)
TASK = "game24/1076"                       # 4 4 6 8: the grammar's examples solve it
WAY = ["4 + 8 = 12 (left: 4 6 12)", "6 - 4 = 2 (left: 2 12)", "2 * 12 = 24 (left: 24)",
       "Answer: (6 - 4) * (4 + 8) = 24"]


@pytest.fixture(scope="module")
def env():
    server = start_service("env", ["env", "game24"])
    try:
        with EnvClient(server.address) as client:
            yield client
    finally:
        server.stop()


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_describe_is_typed(env):
    about = env.describe()
    assert isinstance(about, Description)
    assert (about.name, about.reward_mode) == ("game24", "none")
    assert list(about.action_examples) == WAY
    assert about.reward_range.max >= about.reward_range.success_threshold > about.reward_range.min
    assert about.limits.max_steps > 0 and about.limits.max_batch_actions > 0
    assert about.scores and about.inline_tasks and about.splits[0]
    assert about.message.prompt_pack.act_template        # the wire form stays reachable


def test_tasks_are_listed_whole_across_pages(env):
    first = env.tasks_page(page_size=10)
    assert len(first.task_ids) == 10 and first.next_page_token and first.total > 10
    every = env.list_tasks()
    assert len(every) == first.total == len(set(every))
    assert every[:10] == list(first.task_ids)
    assert env.list_tasks(limit=3) == every[:3]
    assert every == env.list_tasks(env.describe().splits[0])    # "" is the first split


def test_an_episode_to_its_end_then_its_score(env):
    state = env.reset(TASK)
    assert isinstance(state, State)
    assert (state.task_id, state.steps, state.done) == (TASK, 0, False)
    assert "4 4 6 8" in state.observation
    assert not env.score(state).success               # a state that has not acted
    for number, action in enumerate(WAY, start=1):
        step = env.step(state, action)
        assert isinstance(step, Transition) and not step.invalid_action, step.observation
        assert step.steps == step.state.steps == number
        state = step.state
    assert step.done and step.terminated and step.reward >= env.describe().reward_range.success_threshold
    assert state.done
    assert env.score(state).success
    with pytest.raises(EpisodeEnded, match="ended at step 4"):
        env.step(state, WAY[0])


def test_stepping_from_an_earlier_state_reverts(env):
    start = env.reset(TASK)
    first = env.step(start, WAY[0])
    env.step(first.state, WAY[1])                      # on, down one branch...
    again = env.step(start, WAY[0])                    # ...and back to the start
    assert again == first and again.state == first.state
    other = env.step(start, "4 * 6 = 24 (left: 4 8 24)")
    assert other.observation != first.observation
    branches = env.step_all(start, [WAY[0], "4 * 6 = 24 (left: 4 8 24)"])
    assert branches == [first, other]                  # one call, each from the same state


def test_an_invalid_action_is_an_observation_not_an_error(env):
    start = env.reset(TASK)
    step = env.step(start, "make it 24 somehow")
    assert step.invalid_action and not step.done and step.steps == 1
    assert step.state.observation == step.observation


def test_an_unknown_task_is_task_not_found_naming_the_environment(env):
    with pytest.raises(TaskNotFound) as error:
        env.reset("game24/no-such-task")
    assert error.value.code == "NOT_FOUND"
    assert str(error.value).startswith(f"environment at {env.address}: NOT_FOUND:")
    assert "no-such-task" in error.value.details


def test_what_the_server_refuses_is_an_invalid_request(env):
    with pytest.raises(InvalidRequest) as error:
        env.reset(TASK, options={"no_such_option": "1"})
    assert error.value.code == "INVALID_ARGUMENT" and "no_such_option" in error.value.details
    with pytest.raises(InvalidRequest, match="split"):
        env.list_tasks("no-such-split")


@pytest.mark.parametrize(("call", "field"), [
    (lambda env: env.reset(), "task_id"),
    (lambda env: env.reset(""), "task_id"),
    (lambda env: env.reset(TASK, seed="seven"), "seed"),
    (lambda env: env.reset(TASK, options={"k": 1}), "options"),
    (lambda env: env.step(b"a snapshot", WAY[0]), "state"),
    (lambda env: env.step(env.reset(TASK), "  "), "action"),
    (lambda env: env.step_all(env.reset(TASK), []), "actions"),
    (lambda env: env.tasks_page(page_size=-1), "page_size"),
])
def test_arguments_the_client_cannot_send_name_the_field(env, call, field):
    with pytest.raises(InvalidSetting) as error:
        call(env)
    assert error.value.field == field and str(error.value).startswith(f"{field}=")


def test_no_server_is_service_unavailable_naming_the_address():
    address = f"127.0.0.1:{_closed_port()}"
    with EnvClient(address, timeout=5) as env:
        with pytest.raises(ServiceUnavailable) as error:
            env.describe()
    assert isinstance(error.value, LatsError) and address in str(error.value)


def test_the_readme_example_runs_as_written(env):
    from tests.deploy.compose import ROOT

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    begin, end = (text.index(f"<!-- env-client-example: {edge} -->") for edge in ("begin", "end"))
    example = text[begin:end].split("```python\n", 1)[1].split("```", 1)[0]
    done = subprocess.run([sys.executable, "-c", example.replace("127.0.0.1:ENV", env.address)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "True True"
