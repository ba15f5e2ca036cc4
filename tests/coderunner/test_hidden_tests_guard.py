"""Hidden tests are read by Score alone: a whole search of every code method, through a
real code-runner server and the planner's environment client, with hidden tests that
fail loudly (and are logged) when anything but Score touches them."""

from __future__ import annotations

import contextvars
import dataclasses

import pytest

from lats_pb import planner_pb2 as pb

from env_servers.coderunner import CodeRunnerConfig, CodeRunnerDomain
from planner.config import effective_config
from planner.environment_client import EnvironmentClient, TaskRef
from planner.methods import method_spec

from tests.env.helpers import serving
from tests.methods.fakes import CallModel, Recorder

SCORING = contextvars.ContextVar("scoring", default=False)
TASK = "HumanEval/53"          # add(x: int, y: int)


class HiddenTestsRead(AssertionError):
    """Something other than Score read the hidden tests."""


class GuardedTests(tuple):
    """The hidden tests, readable only while Score runs; every other read raises."""

    reads_outside_score: list[str] = []

    def _check(self, how: str) -> None:
        if not SCORING.get():
            GuardedTests.reads_outside_score.append(how)
            raise HiddenTestsRead(f"the hidden tests were read outside Score ({how})")

    def __iter__(self):
        self._check("iterated")
        return super().__iter__()

    def __getitem__(self, index):
        self._check("indexed")
        return super().__getitem__(index)

    def __len__(self):
        self._check("measured")
        return super().__len__()


class GuardedDomain(CodeRunnerDomain):
    """The code runner, its problems' hidden tests guarded; Score opens the guard."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        real_get = self.tasks.get

        def get(task):
            problem = real_get(task)
            return dataclasses.replace(problem, hidden_tests=GuardedTests(problem.hidden_tests))

        self.tasks.get = get

    async def score(self, state):
        token = SCORING.set(True)
        try:
            return await super().score(state)
        finally:
            SCORING.reset(token)


RIGHT = "```python\ndef add(x: int, y: int):\n    return x + y\n```"
WRONG = "```python\ndef add(x: int, y: int):\n    return x - y\n```"


def answer(purpose, prompt, params):
    if purpose in ("cot", "act"):
        # wrong first, right once the model has seen a failure
        return [RIGHT if "Tests failed" in prompt else WRONG] * params.n
    if purpose == "value":
        return ["Thus the correctness score is 5"] * params.n
    return ["assert add(1, 1) == 2"] if purpose == "setup" else ["It subtracts."]


@pytest.mark.parametrize("method", ["lats", "lats_paper", "best_of_n", "reflexion", "cot"])
async def test_no_search_method_reads_hidden_tests_before_score(method, sandbox):
    domain = GuardedDomain(CodeRunnerConfig(), sandbox=sandbox)
    with pytest.raises(HiddenTestsRead):
        list(domain.tasks.get(TASK).hidden_tests)      # the guard itself works
    GuardedTests.reads_outside_score = []
    async with serving(domain) as served:
        env = EnvironmentClient(served.address)
        try:
            desc = await env.describe()
            config = effective_config(pb.SearchConfig(method=method, n_samples=2, iterations=3),
                                      desc.prompt_pack.search_hints,
                                      desc.prompt_pack.paper_search_hints)
            search = method_spec(method).search(env, desc, CallModel(answer), config,
                                                TaskRef(task_id=TASK), Recorder())
            outcome = await search.run()
        finally:
            await env.aclose()
    assert GuardedTests.reads_outside_score == []
    assert outcome.score is not None, "Score ran, and could read them"
    if method != "cot":
        assert outcome.score.success, outcome.reason
