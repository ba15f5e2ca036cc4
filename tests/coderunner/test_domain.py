"""The code-runner domain: Reset with internal tests, Step feedback and reward, Score.

Programs run in the real bubblewrap sandbox (a fresh process per run).
"""

from __future__ import annotations

import json

import pytest

from env_servers.coderunner import CodeRunnerConfig, CodeRunnerDomain
from env_servers.coderunner.domain import GRAMMAR
from env_servers.core import InvalidRequest, TaskNotFound
from env_servers.sandbox.base import Limits
from tests.coderunner.conftest import canonical_program

ADD = "HumanEval/53"  # def add(x: int, y: int), docstring examples add(2, 3) == 5, add(5, 7) == 12
MODEL_TESTS = """Sure, here are the tests:
```python
assert add(1, 2) == 3
assert add(0, 0) == 0
assert add(1, 2) == 3
assert add(-4, 4) == 0
```"""
TIMES = "```python\ndef add(x: int, y: int):\n    return x * y\n```"
PLUS = "def add(x: int, y: int):\n    return x + y\n"


def reset(domain, task=ADD, **options):
    return domain.reset(task, 0, options)


EXAMPLES = ["assert add(2, 3) == 5", "assert add(5, 7) == 12"]


async def test_reset_takes_the_tasks_examples_then_the_models_tests_and_shows_the_prompt(domain):
    outcome = reset(domain, internal_tests=MODEL_TESTS)
    problem = domain.tasks.get(ADD)
    assert outcome.observation == problem.prompt.strip("\n")
    assert outcome.task_id == ADD
    assert outcome.state["tests"] == EXAMPLES + ["assert add(1, 2) == 3", "assert add(0, 0) == 0",
                                                 "assert add(-4, 4) == 0"]
    assert outcome.info["tests_source"] == "docstring+model" and outcome.info["entry_point"] == "add"
    assert outcome.info["left_out_tests"] == ["assert add(1, 2) == 3  # a repeat"]


async def test_reset_says_which_of_the_models_asserts_it_left_out_and_why(domain):
    reply = ("assert add3Numbers(1, 2, 3) == 6\nassert add(1, 1) == 2\n"
             "assert add(2, 2) == 4 and True\nassert add(1, 1) == 2\n")
    outcome = reset(domain, internal_tests=reply)
    assert outcome.state["tests"][-2:] == ["assert add(1, 1) == 2", "assert add(2, 2) == 4 and True"]
    assert outcome.info["left_out_tests"] == ["assert add3Numbers(1, 2, 3) == 6  # does not call add",
                                              "assert add(1, 1) == 2  # a repeat"]
    assert "left_out_tests" in reset(domain).info and reset(domain).info["left_out_tests"] == []


async def test_with_task_examples_fallback_the_models_tests_alone_are_kept(sandbox):
    domain = CodeRunnerDomain(CodeRunnerConfig(task_examples="fallback"), sandbox=sandbox)
    outcome = reset(domain, internal_tests=MODEL_TESTS)
    assert outcome.state["tests"] == ["assert add(1, 2) == 3", "assert add(0, 0) == 0",
                                      "assert add(-4, 4) == 0"]
    assert outcome.state["tests_source"] == "model"


async def test_a_wrong_model_test_cannot_outweigh_the_tasks_examples(domain):
    """HumanEval/63's trap: the model's own test is wrong, so a right program fails it."""
    wrong = "```python\nassert add(2, 2) == 5\n```"
    outcome = reset(domain, internal_tests=wrong)
    assert outcome.state["tests"] == EXAMPLES + ["assert add(2, 2) == 5"]
    right = await domain.step(outcome.state, PLUS)
    fits_the_wrong_test = await domain.step(outcome.state, "def add(x, y):\n    return x + y + 1\n")
    assert (right.reward, right.terminated) == (pytest.approx(2 / 3), False)
    assert fits_the_wrong_test.reward == pytest.approx(1 / 3)  # it fails both of the task's examples


async def test_the_number_of_model_tests_is_capped_by_the_config(sandbox):
    domain = CodeRunnerDomain(CodeRunnerConfig(internal_tests=2), sandbox=sandbox)
    assert reset(domain, internal_tests=MODEL_TESTS).state["tests"] == EXAMPLES + [
        "assert add(1, 2) == 3", "assert add(0, 0) == 0"]
    assert domain.describe().prompt_pack.variables["internal_tests"] == "2"


async def test_a_model_test_equal_to_an_example_is_kept_once(domain):
    outcome = reset(domain, internal_tests="assert add(2, 3) == 5\nassert add(1, 1) == 2")
    assert outcome.state["tests"] == EXAMPLES + ["assert add(1, 1) == 2"]


async def test_a_reply_without_asserts_falls_back_to_docstring_examples_and_says_so(domain):
    outcome = reset(domain, internal_tests="I would test it with a few numbers.")
    assert outcome.state["tests"] == ["assert add(2, 3) == 5", "assert add(5, 7) == 12"]
    assert outcome.state["tests_source"] == "docstring"
    assert "no usable assert" in outcome.observation and "2 example(s)" in outcome.observation
    step = await domain.step(outcome.state, PLUS)
    assert step.reward == 1.0 and step.terminated


async def test_without_examples_the_fallback_checks_the_function_exists(domain):
    outcome = reset(domain, "mbpp_234_volume_cube", internal_tests="")
    assert outcome.state["tests"] == ["assert callable(volume_cube)"]
    assert "only checks that the function is defined" in outcome.observation
    missing = await domain.step(outcome.state, "def cube(l):\n    return l ** 3\n")
    assert missing.reward == 0.0
    assert "NameError: name 'volume_cube' is not defined" in missing.observation


async def test_without_the_option_the_fallback_is_silent(domain):
    outcome = reset(domain)
    assert outcome.state["tests_source"] == "docstring"
    assert outcome.observation == domain.tasks.get(ADD).prompt.strip("\n")


async def test_unknown_options_and_tasks_are_refused(domain):
    with pytest.raises(InvalidRequest, match="internal_tests"):
        reset(domain, tests="assert add(1, 2) == 3")
    with pytest.raises(TaskNotFound, match="HumanEval/0"):
        reset(domain, "HumanEval/9999")


async def test_step_reports_per_test_results_with_the_actual_output(domain):
    state = reset(domain, internal_tests=MODEL_TESTS).state
    step = await domain.step(state, TIMES)
    assert step.observation == (
        "Tested passed:\n"
        "assert add(0, 0) == 0\n"
        "\n"
        "Tests failed:\n"
        "assert add(2, 3) == 5 # output: 6, expected: 5\n"
        "assert add(5, 7) == 12 # output: 35, expected: 12\n"
        "assert add(1, 2) == 3 # output: 2, expected: 3\n"
        "assert add(-4, 4) == 0 # output: -16, expected: 0"
    )
    assert step.reward == pytest.approx(1 / 5) and not step.terminated
    assert step.info == {"status": "ok", "passed": 1, "total": 5}
    assert step.failure_kind == "wrong", "every failed test returned a wrong value"
    assert step.state["program"] == "def add(x: int, y: int):\n    return x * y\n"


async def test_passing_every_internal_test_terminates_with_reward_one(domain):
    state = reset(domain, internal_tests=MODEL_TESTS).state
    step = await domain.step(state, f"Here you go:\n```python\n{PLUS}```")
    assert step.reward == 1.0 and step.terminated and step.failure_kind == ""
    assert step.observation.startswith("Tested passed:\nassert add(2, 3) == 5\n")
    assert step.observation.endswith("Tests failed:")


async def test_a_reply_without_code_is_an_invalid_action(domain):
    state = reset(domain, internal_tests=MODEL_TESTS).state
    step = await domain.step(state, "I am not sure how to do this.")
    assert step.invalid_action and step.reward == 0.0
    assert "No Python code found" in step.observation


async def test_compiler_errors_are_reported(domain):
    state = reset(domain, internal_tests=MODEL_TESTS).state
    step = await domain.step(state, "def add(x, y):\n    return (x + y\n")
    assert step.observation.startswith("The program does not compile: SyntaxError: ")
    assert "(line 2)" in step.observation
    assert step.reward == 0.0 and step.observation.count("# output:") == 5
    assert step.failure_kind == "syntax"


async def test_runtime_errors_are_reported_per_test(domain):
    state = reset(domain, internal_tests=MODEL_TESTS).state
    step = await domain.step(state, "def add(x, y):\n    return x / y\n")
    assert ("assert add(0, 0) == 0 # raised ZeroDivisionError: division by zero, "
            "at line 2: return x / y") in step.observation, "the error and where it was raised"
    assert "assert add(-4, 4) == 0 # output: -1.0, expected: 0" in step.observation
    assert step.reward == 0.0 and step.failure_kind == "raised", "one test raised"


async def test_a_program_that_hangs_times_out(sandbox):
    config = CodeRunnerConfig(run_limits=Limits(wall_seconds=1.0, cpu_seconds=1))
    domain = CodeRunnerDomain(config, sandbox=sandbox)
    state = reset(domain, internal_tests=MODEL_TESTS).state
    step = await domain.step(state, "def add(x, y):\n    while True:\n        pass\n")
    assert step.observation.startswith("The program timed out (the tests ran longer than 1 s)")
    assert step.reward == 0.0 and not step.terminated and step.failure_kind == "timeout"


async def test_score_gives_the_program_the_prompts_own_imports_as_the_official_evaluator_does(
        domain, humaneval_records):
    """HumanEval/0's prompt imports List; the official evaluator runs prompt + completion, so a
    program that uses List without importing it passes there. Score runs the prompt's own code as
    the task's trusted setup: the same verdict, from the task's import, never an earlier run's."""
    record = humaneval_records["HumanEval/0"]
    body = record["canonical_solution"]
    unimported = ("def has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
                  + body)
    state = reset(domain, "HumanEval/0").state
    step = await domain.step(state, unimported)
    assert (await domain.score(step.state)).success
    imported = await domain.step(state, "from typing import List\n" + unimported)
    assert (await domain.score(imported.state)).success
    wrong = await domain.step(state, "def has_close_elements(numbers: List[float], threshold: float):\n"
                                     "    return False\n")
    assert not (await domain.score(wrong.state)).success


async def test_score_runs_the_hidden_tests_on_the_latest_program_alone(domain, sandbox,
                                                                       humaneval_records):
    state = reset(domain, "HumanEval/0").state
    assert (await domain.score(state)).details.startswith("no program yet")
    program = canonical_program(humaneval_records["HumanEval/0"])
    right = await domain.step(state, program)
    score = await domain.score(right.state)
    assert score.success and score.score == 1.0
    assert score.metrics == {"pass_rate": 1.0, "passed": 1.0, "total": 1.0}
    scored = sandbox.runs[-1]
    assert scored.program == program  # nothing prepended: no prompt, no typing import
    assert "check(has_close_elements)" in scored.tests[0]
    wrong = await domain.step(right.state, program.replace("< threshold", "> threshold"))
    assert not (await domain.score(wrong.state)).success


async def test_hidden_tests_never_enter_the_state(domain, humaneval_records):
    problem = domain.tasks.get("HumanEval/0")
    state = reset(domain, "HumanEval/0", internal_tests=MODEL_TESTS).state
    step = await domain.step(state, canonical_program(humaneval_records["HumanEval/0"]))
    for shown in (json.dumps(state), json.dumps(step.state), step.observation):
        assert "candidate([1.0, 2.0, 3.9" not in shown
    assert "candidate([1.0, 2.0, 3.9" in problem.hidden_tests[0]


async def test_honest_mode_never_runs_hidden_tests_during_steps(domain, sandbox):
    state = reset(domain, internal_tests=MODEL_TESTS).state
    await domain.step(state, TIMES)
    await domain.step(state, PLUS)
    hidden = domain.tasks.get(ADD).hidden_tests
    assert all(run.tests != hidden for run in sandbox.runs)
    assert domain.describe().reward_mode == "none"


async def test_oracle_mode_ends_the_episode_only_when_the_hidden_tests_pass(oracle_domain):
    assert oracle_domain.describe().reward_mode == "oracle"
    wrong_tests = "assert add(1, 2) == 2\nassert add(0, 0) == 0"  # a model's wrong test
    state = reset(oracle_domain, internal_tests=wrong_tests).state
    cheat = await oracle_domain.step(state, "def add(x, y):\n    return 2 if x == 1 else x + y\n")
    assert cheat.reward == 1.0 and cheat.info["passed"] == 4  # the task's two examples and both of the model's
    assert not cheat.terminated and cheat.info["hidden_passed"] is False
    right = await oracle_domain.step(state, PLUS)
    assert right.terminated and right.reward == 1.0 and right.info["hidden_passed"] is True
    assert right.info["passed"] == 3  # the model's wrong test still fails


async def test_mbpp_formats_score_their_reference_solutions(domain):
    sanitized = domain.tasks.get("Mbpp/2")
    assert sanitized.entry_point == "similar_elements"
    assert sanitized.prompt.startswith("def similar_elements(test_tup1, test_tup2):\n")
    assert len(sanitized.hidden_tests) == 3
    state = reset(domain, "Mbpp/2").state
    assert state["tests"] == [
        "assert set(similar_elements((3, 4, 5, 6), (5, 7, 4, 10))) == set((4, 5))"]
    reference = ("def similar_elements(test_tup1, test_tup2):\n"
                 "  return tuple(set(test_tup1) & set(test_tup2))\n")
    step = await domain.step(state, reference)
    assert step.terminated
    score = await domain.score(step.state)
    assert score.success and score.metrics["total"] == 3.0

    lats = reset(domain, "mbpp_234_volume_cube").state
    cube = await domain.step(lats, "def volume_cube(l: int) -> int:\n    return l ** 3\n")
    assert (await domain.score(cube.state)).success


async def test_describe_publishes_the_programming_search_hints(domain):
    description = domain.describe()
    paper = description.prompt_pack.paper_search_hints   # the official programming LATS
    assert (paper.n_samples, paper.iterations, paper.root_samples) == (5, 8, 1)
    assert not paper.simulate and paper.reflect_each_failure and paper.reward_in_value
    assert paper.value_weight == pytest.approx(0.8)
    hints = description.prompt_pack.search_hints         # chosen on the development slice
    assert hints.root_samples == 0 and not hints.simulate and hints.reward_in_value
    assert hints.value_weight == 0.0 and hints.HasField("reflection") and not hints.reflection
    assert list(hints.unrefined_failures) == ["raised"], "what refining rarely fixed there"
    assert (hints.wider_prior, hints.deeper_prior, hints.prior_strength) == (0.13, 0.01, 5.0)
    assert description.facts.answer_keys and description.facts.complete_answer_actions
    pack = description.prompt_pack
    assert pack.reflect_stop and pack.setup_stop
    assert pack.setup_option_key == "internal_tests" and "{task}" in pack.setup_template
    assert "{reflection}" in pack.step_template and "{action}" in pack.step_template
    assert "{observation}" in pack.step_template
    assert description.splits == ("humaneval", "lats-humaneval", "lats-mbpp", "mbpp-sanitized",
                                  "lats-mbpp-hard")
    assert len(domain.list_tasks("humaneval")) == 164
    assert len(domain.list_tasks("lats-humaneval")) == 160
    assert len(domain.list_tasks("lats-mbpp")) == 397
    assert len(domain.list_tasks("mbpp-sanitized")) == 427


async def test_the_grammar_examples_play_on_their_task(domain):
    state = reset(domain).state
    wrong = await domain.step(state, GRAMMAR.examples[0])
    assert wrong.reward == 0.0 and not wrong.terminated and not wrong.invalid_action
    right = await domain.step(wrong.state, GRAMMAR.examples[1])
    assert right.terminated and (await domain.score(right.state)).success


async def test_extra_task_files_become_splits(tmp_path, sandbox):
    extra = tmp_path / "my-tasks.jsonl"
    extra.write_text(json.dumps({
        "task_id": "Mine/0", "entry_point": "double",
        "prompt": ('def double(n: int) -> int:\n'
                   '    """Twice n.\n    >>> double(2)\n    4\n    """\n'),
        "test": "def check(candidate):\n    assert candidate(3) == 6\n"}) + "\n")
    domain = CodeRunnerDomain(CodeRunnerConfig(extra_task_files=(extra,)), sandbox=sandbox)
    assert domain.describe().splits[-1] == "my-tasks"
    assert domain.list_tasks("my-tasks") == ["Mine/0"]
    state = reset(domain, "Mine/0").state
    assert state["tests"] == ["assert double(2) == 4"]
    step = await domain.step(state, "def double(n):\n    return 2 * n\n")
    assert (await domain.score(step.state)).success


def test_describe_states_the_domains_facts(domain):
    facts = domain.describe().facts
    assert facts.complete_answer_actions and facts.partial_credit_rewards


FORGED_ADDS = {
    "always-equal": "class Equal:\n    def __eq__(self, other):\n        return True\n"
                    "def add(x: int, y: int):\n    return Equal()\n",
    "builtins-exec": "import builtins\ndef fake_exec(code, namespace=None, *rest):\n"
                     "    if isinstance(namespace, dict):\n        namespace['__sandbox_holds__'] = True\n"
                     "builtins.exec = fake_exec\ndef add(x: int, y: int):\n    return x - y - 1\n",
    "shadowed-abs": "def abs(x):\n    return 0\ndef add(x: int, y: int):\n    return x - y - 1\n",
}


@pytest.mark.parametrize("name", sorted(FORGED_ADDS))
async def test_a_wrong_program_cannot_forge_its_reward_or_its_score(domain, name):
    state = reset(domain, internal_tests=MODEL_TESTS).state
    step = await domain.step(state, FORGED_ADDS[name])
    assert step.reward == 0.0 and not step.terminated, step.observation
    score = await domain.score(step.state)
    assert not score.success and score.score == 0.0


async def test_steps_and_probes_see_the_tasks_own_helpers(domain, humaneval_records):
    # HumanEval/32's find_zero relies on the prompt's helper poly; a program that
    # leaves the helper out is judged with the task's own, at Step as at Score
    record = humaneval_records["HumanEval/32"]
    program = "def find_zero(xs: list):\n" + record["canonical_solution"]
    step = await domain.step(reset(domain, "HumanEval/32").state, program)
    assert step.terminated and step.reward == 1.0, step.observation
    assert step.answer_key
    assert (await domain.score(step.state)).success


async def test_reset_says_the_verdict_is_isolated_only_where_the_sandbox_is_secure():
    from env_servers.sandbox import make_sandbox

    for name, secure in (("bwrap", True), ("process", False)):  # process: the split judge, nothing isolated
        box = make_sandbox(name, allow_insecure=not secure)
        try:
            info = reset(CodeRunnerDomain(CodeRunnerConfig(), sandbox=box)).info
        finally:
            await box.aclose()
        assert box.verdict_isolated and info["sandbox_secure"] is secure and info["verdict_isolated"] is secure
