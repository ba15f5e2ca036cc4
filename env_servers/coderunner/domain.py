"""The code-runner `Domain`: programming problems whose actions are whole programs.

Episode: Reset takes the internal tests (options["internal_tests"], the
model's own asserts from the prompt pack's setup step; parsed, deduplicated,
capped). Each Step is one full implementation: it is extracted from the reply,
run with the internal tests in a fresh sandboxed process, and answered with
the compiler / runtime feedback and per-test results ("Tested passed: ...
Tests failed: ... # output: ..."). Reward = the share of internal tests
passed; the episode terminates when all pass. Score runs the hidden tests on
the latest program in a fresh process. Hidden tests never leave the server
otherwise: the state (which snapshot blobs carry to clients) holds only the
task id, the internal tests and the latest program.

The prompt's own examples come first among the internal tests, the model's
asserts after them (config task_examples "always"; "fallback" uses the
examples only when the model wrote no usable assert). Without either, the
one test is a check that the entry point is defined; the observation says so
when a reply was unusable.

State (JSON): task_id, tests, tests_source ("docstring+model" | "model" |
"docstring" | "smoke"),
program (the latest extracted program or null), observation, passed.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from typing import Any

from lats_pb import environment_pb2

from lats_runtime.quoting import quoted_list

from env_servers.coderunner.config import CodeRunnerConfig
from env_servers.coderunner.extraction import NoCodeFound, extract_program
from env_servers.coderunner.feedback import (compile_error, failure_kind, observation,
                                              program_problem)
from env_servers.coderunner.internal_tests import docstring_examples, smoke_test, sort_asserts
from env_servers.coderunner.probes import behaviour_facets, behaviour_key, probe_tests
from env_servers.coderunner.problems import Problem
from env_servers.coderunner.sandbox_metrics import observed_run
from env_servers.coderunner.prompts import INTERNAL_TESTS_OPTION, prompt_pack
from env_servers.coderunner.tasks import TaskSet
from env_servers.core import (
    Domain,
    DomainDescription,
    InvalidRequest,
    ResetOutcome,
    ScoreResult,
    State,
    StepOutcome,
    TaskSpec,
)
from env_servers.sandbox import RunRequest, RunResult, Sandbox, make_sandbox
from env_servers.sandbox.base import STATUS_OK, STATUS_SYNTAX_ERROR

log = logging.getLogger(__name__)

MAX_ACTION_BYTES = 64 * 1024
# The model's asserts for Reset: the setup prompt asks 48 tokens per test (about
# 1 KB for 4), so 16 KiB is room to spare and parses in about 30 ms.
MAX_OPTION_BYTES = 16 * 1024
MAX_STEPS = 16

# The examples answer HumanEval/53 (`add(x, y)`): a wrong program, then a right one.
GRAMMAR = environment_pb2.ActionGrammar(
    description=(
        "One full Python implementation of the task's function (restate the signature and "
        "include the imports it needs), preferably in one ```python fenced block; prose "
        "around the code is ignored. Each step replaces the previous program."
    ),
    examples=[
        "```python\ndef add(x: int, y: int):\n    return x * y\n```",
        "def add(x: int, y: int):\n    \"\"\"Add two numbers x and y.\"\"\"\n    return x + y\n",
    ],
)


class CodeRunnerDomain(Domain):
    name = "coderunner"
    version = "1.0.0"
    description = (
        "Python programming problems (HumanEval, the LATS MBPP subset, sanitized MBPP): "
        "each action is a full implementation, run in a sandbox against the internal "
        "tests the model wrote for the problem (given at Reset); the reward is the share "
        "of them passed. Score runs the benchmark's hidden tests on the latest program."
    )

    settings_class = CodeRunnerConfig
    # Reset parses the model's asserts (up to MAX_OPTION_BYTES, ~30 ms): in a
    # thread, so other clients' calls are not held up meanwhile.
    offload_sync_calls = True

    def __init__(self, config: CodeRunnerConfig | None = None, sandbox: Sandbox | None = None):
        self.config = config or CodeRunnerConfig()
        self.tasks = TaskSet(self.config.data_dir, self.config.extra_task_files)
        self._sandbox = sandbox
        if self._sandbox is None:
            options = {"allow_insecure": True} if self.config.allow_insecure_sandbox else {}
            self._sandbox = make_sandbox(self.config.sandbox, **options)
        if not self._sandbox.secure:
            log.warning("sandbox %r is INSECURE: programs run without isolation "
                        "(development only)", self._sandbox.name)

    @property
    def sandbox(self) -> Sandbox:
        return self._sandbox

    def describe(self) -> DomainDescription:
        return DomainDescription(
            capabilities=environment_pb2.Capabilities(inline_tasks=False, score=True),
            action_grammar=GRAMMAR,
            reward_range=environment_pb2.RewardRange(min=0, max=1, success_threshold=1),
            prompt_pack=prompt_pack(self.config.internal_tests),
            splits=self.tasks.splits,
            reward_mode=self.config.reward_mode,
            max_steps=MAX_STEPS,
            max_action_bytes=MAX_ACTION_BYTES,
            max_option_bytes=MAX_OPTION_BYTES,
            facts=environment_pb2.EnvironmentFacts(complete_answer_actions=True,
                                                   partial_credit_rewards=True,
                                                   answer_keys=True),
        )

    def list_tasks(self, split: str) -> list[str]:
        return self.tasks.ids(split)

    def reset(self, task: TaskSpec, seed: int, options: Mapping[str, str]) -> ResetOutcome:
        unknown = set(options) - {INTERNAL_TESTS_OPTION}
        if unknown:
            raise InvalidRequest(f"unknown option(s) {quoted_list(unknown)}; coderunner "
                                 f"takes only {INTERNAL_TESTS_OPTION!r} (the model's asserts)")
        problem = self.tasks.get(task)  # inline tasks are refused by the servicer
        reply = options.get(INTERNAL_TESTS_OPTION)
        model, left_out = (sort_asserts(_as_text(reply), problem.entry_point,
                                        self.config.internal_tests) if reply else ([], []))
        tests, source = self._internal_tests(problem, model)
        shown = problem.prompt.strip("\n")
        if reply is not None and source in ("docstring", "smoke"):
            shown += "\n\n" + _fallback_note(source, len(tests))
        state = {
            "task_id": problem.task_id,
            "tests": tests,
            "tests_source": source,
            "program": None,
            "observation": shown,
            "passed": 0,
        }
        info = {"entry_point": problem.entry_point, "internal_tests": tests,
                "tests_source": source, "left_out_tests": left_out,
                "sandbox": self._sandbox.name,
                "sandbox_secure": self._sandbox.secure,
                # a judge apart from the program is no guarantee where nothing is isolated
                "verdict_isolated": self._sandbox.secure and getattr(self._sandbox, "verdict_isolated", False)}
        return ResetOutcome(state, shown, problem.task_id, info=info)

    async def step(self, state: State, action: str) -> StepOutcome:
        problem = self.tasks.get(state["task_id"])
        try:
            program = extract_program(action, problem.entry_point)
        except NoCodeFound as error:
            return StepOutcome(state, str(error), invalid_action=True)
        tests = tuple(state["tests"])
        result, (key, facets) = await asyncio.gather(
            self._run(program, tests, "step", problem.entry_point,
                      problem.setup),
            self._behaviour_key(problem, program))
        passed = result.passed if result.status == STATUS_OK else 0
        text = observation(result, tests, self.config.run_limits.wall_seconds,
                           _syntax_error(result, program), program)
        reward = passed / len(tests)
        terminated = passed == len(tests)
        info: dict[str, Any] = {"status": result.status, "passed": passed, "total": len(tests)}
        if self.config.reward_mode == "oracle":
            # The official LATS code's behaviour: hidden tests steer the search.
            terminated = (await self._hidden_run(problem, program)).all_passed
            reward = 1.0 if terminated else reward
            info["hidden_passed"] = terminated
        new_state = dict(state, program=program, observation=text, passed=passed)
        return StepOutcome(new_state, text, reward=reward, terminated=terminated, info=info,
                           answer_key=key, answer_facets=facets,
                           failure_kind=failure_kind(result, tests))

    def observation_of(self, state: State) -> str:
        return state["observation"]

    async def score(self, state: State) -> ScoreResult:
        program = state.get("program")
        if not program:
            return ScoreResult(0.0, False, {"pass_rate": 0.0, "passed": 0.0, "total": 0.0},
                               "no program yet: the episode has not taken a step")
        problem = self.tasks.get(state["task_id"])
        result = await self._hidden_run(problem, program)
        total = len(problem.hidden_tests)
        passed = result.passed if result.status == STATUS_OK else 0
        success = result.all_passed
        why = program_problem(result, self.config.run_limits.wall_seconds,
                              _syntax_error(result, program))
        details = (f"{passed}/{total} hidden test blocks passed in a fresh "
                   f"{self._sandbox.name} sandbox process" + (f"; {why}" if why else ""))
        return ScoreResult(1.0 if success else 0.0, success,
                           {"pass_rate": passed / total, "passed": float(passed),
                            "total": float(total)}, details)

    async def close(self) -> None:
        await self._sandbox.aclose()

    # --- helpers ----------------------------------------------------------------

    def _internal_tests(self, problem: Problem, model: list[str]) -> tuple[list[str], str]:
        """The tests a search checks programs with, and where they came from; `model`
        is the model's usable asserts (internal_tests.sort_asserts).

        The task statement's own examples are the spec; the model's asserts
        may be wrong (HumanEval/63: a right program failed them). So with
        task_examples "always" the examples come first and the model's asserts
        follow (up to `internal_tests` of them, duplicates dropped), each test
        counting alike in the reward; with "fallback" the examples are used
        only when the model wrote no usable assert.
        """
        limit = self.config.internal_tests
        examples = docstring_examples(problem.prompt, problem.entry_point, limit)
        if model and (self.config.task_examples == "fallback" or not examples):
            return model, "model"
        if model:
            return examples + [test for test in model if test not in examples], "docstring+model"
        if examples:
            return examples, "docstring"
        return [smoke_test(problem.entry_point)], "smoke"

    def run_request(self, program: str, tests: tuple[str, ...], purpose: str,
                    entry_point: str = "", setup: str = "") -> RunRequest:
        """The sandbox request for running `program` against `tests` for `purpose`
        ("step", "probe" or "hidden"): only the hidden tests are trusted code.

        Any other tests (a Step's: the model's own asserts among them) run as
        untrusted code, in a process of their own that reaches the program only
        through the judge (RunRequest.untrusted_tests). `setup` is the task's
        own trusted code (Problem.setup). Every purpose runs under the same
        limits (config.run_limits), and the sandbox runs a tester for every
        run, so a program sees the same from inside whatever the purpose.
        """
        trusted = purpose == "hidden"
        return RunRequest(program=program, tests=tests if trusted else (),
                          untrusted_tests=() if trusted else tests,
                          limits=self.config.run_limits,
                          entry_points=(entry_point,) if entry_point else (), setup=setup)

    async def _run(self, program: str, tests: tuple[str, ...], purpose: str,
                   entry_point: str = "", setup: str = "") -> RunResult:
        """Runs `run_request(...)` on the sandbox, observed in the metrics."""
        with observed_run(self._sandbox.name, purpose) as observed:
            result = await self._sandbox.run(
                self.run_request(program, tests, purpose, entry_point, setup))
            observed.status, observed.all_passed = result.status, result.all_passed
        return result

    async def _behaviour_key(self, problem: Problem, program: str
                             ) -> tuple[str, tuple[tuple[str, str], ...]]:
        """The program's answer key (its outcomes on the task's probe inputs) and the
        facets it is made of (each probe call and the program's outcome on it)."""
        probes = probe_tests(problem.prompt, problem.entry_point)
        if not probes:
            return "", ()
        result = await self._run(program, probes, "probe",
                                 problem.entry_point, problem.setup)
        return behaviour_key(result), behaviour_facets(probes, result)

    async def _hidden_run(self, problem: Problem, program: str) -> RunResult:
        return await self._run(program, problem.hidden_tests, "hidden",
                               problem.entry_point, problem.setup)


def _as_text(reply: str) -> str:
    """The reply itself, or the lines of a JSON list of strings (for programmatic callers)."""
    if reply.lstrip().startswith("["):
        try:
            items = json.loads(reply)
        except ValueError:
            return reply
        if isinstance(items, list) and all(isinstance(i, str) for i in items):
            return "\n".join(items)
    return reply


def _syntax_error(result: RunResult, program: str) -> str:
    return compile_error(program) if result.status == STATUS_SYNTAX_ERROR else ""


def _fallback_note(source: str, count: int) -> str:
    if source == "docstring":
        return (f"Note: the unit tests written for this problem had no usable assert "
                f"statement, so the feedback uses the {count} example(s) from the docstring.")
    return ("Note: the unit tests written for this problem had no usable assert statement "
            "and the docstring has no examples, so the feedback only checks that the "
            "function is defined.")
