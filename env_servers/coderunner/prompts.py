"""The programming prompt pack, adapted from the LATS paper's programming
prompts (appendix; the official code's programming/generators/py_generate.py,
MIT licence, itself from Reflexion): the simple and reflexion implementation
prompts, the self-reflection prompt with its few-shot example, and the
internal-test generation prompt with its add3Numbers example.

How the planner uses it (environment.proto documents the mechanism):
  * setup_template runs once per problem; the reply (the model's own unit
    tests) goes to Reset as options["internal_tests"].
  * act_template asks for a full implementation. The branch's history is
    rendered with STEP_TEMPLATE: every earlier attempt's code, its test
    results and the self-reflection on it, so the model sees all of it.
  * reflect_template asks for the self-reflection on a failed attempt (the
    trajectory ends with that attempt's empty reflection slot, which the
    reply fills).
  * value_template asks for a 1-10 correctness score of the latest attempt;
    the planner mixes it with the internal pass rate (lambda = 0.8).
"""

from __future__ import annotations

from lats_pb import environment_pb2

INTERNAL_TESTS_OPTION = "internal_tests"

INSTRUCTIONS = """\
You are an expert Python programmer. You write correct, complete Python \
functions, unit tests that check them, and short, precise critiques of \
implementations that fail their tests."""

STEP_TEMPLATE = """\
[attempt {step}]:
{action}

[unit test results of attempt {step}]:
{observation}

[self-reflection on attempt {step}]:
{reflection}

"""

EXAMPLES = '''\
Example:
[function signature and docstring]:
def add(a: int, b: int) -> int:
    """
    Given integers a and b, return the total value of a and b.
    """

[attempt 1]:
```python
def add(a: int, b: int) -> int:
    """
    Given integers a and b, return the total value of a and b.
    """
    return a - b
```

[unit test results of attempt 1]:
Tested passed:

Tests failed:
assert add(1, 2) == 3 # output: -1, expected: 3
assert add(-1, 5) == 4 # output: -6, expected: 4

[self-reflection on attempt 1]:
The implementation failed the test cases where the input integers are 1 and 2, and -1 and 5. \
The issue arises because the code does not add the two integers together, but instead \
subtracts the second integer from the first. To fix this issue, we should change the \
operator from `-` to `+` in the return statement. This will ensure that the function \
returns the correct output for the given input.

[attempt 2]:
```python
def add(a: int, b: int) -> int:
    """
    Given integers a and b, return the total value of a and b.
    """
    return a + b
```
END OF EXAMPLE
'''

ACT_TEMPLATE = """\
You will be given a function signature and its docstring, and possibly your earlier \
implementations with their unit test results and your self-reflections on them. Write \
your full implementation (restate the function signature, include every import it \
needs). If there are earlier attempts, use their test results and reflections to \
improve on them. Reply with one ```python code block and nothing else.

{examples}
[function signature and docstring]:
{task}

{trajectory}[attempt {step}]:
"""

REFLECT_TEMPLATE = """\
You will be given a function implementation and its unit test results. Write a few \
sentences to explain why the implementation is wrong as indicated by the tests (the \
tests were written by a model too: if an expected value contradicts the docstring, say \
so). You will need this as a hint when you try again later. Only provide the few \
sentence description in your answer, not the implementation.

{examples}
[function signature and docstring]:
{task}

{trajectory}"""

VALUE_EXAMPLES = '''\
Example:
[function signature and docstring]:
def add(a: int, b: int) -> int:
    """
    Given integers a and b, return the total value of a and b.
    """

[attempt 1]:
```python
def add(a: int, b: int) -> int:
    return a - b
```

[unit test results of attempt 1]:
Tested passed:

Tests failed:
assert add(1, 2) == 3 # output: -1, expected: 3

[evaluation of the latest attempt]:
The code subtracts b from a instead of adding them, which contradicts the docstring, \
and it fails the test. Thus the correctness score is 1
END OF EXAMPLE
'''

VALUE_TEMPLATE = """\
Judge whether the latest attempt below is a correct and complete solution: compare the \
code with the signature and docstring, and read its unit test results (the tests were \
written by a model and may themselves be wrong). Explain briefly, then end with "Thus \
the correctness score is N", where N is from 1 (certainly wrong) to 10 (certainly correct).

{examples}
[function signature and docstring]:
{task}

{trajectory}[evaluation of the latest attempt]:
"""

SETUP_TEMPLATE = '''\
You are an AI coding assistant that can write unique, diverse, and intuitive unit tests \
for functions given the signature and docstring. Write {internal_tests} unit tests as \
plain `assert` statements, one per line, like the examples: no function, no unittest \
class, nothing else.

Examples:
func signature:
def add3Numbers(x, y, z):
    """ Add three numbers together.
    This function takes three numbers as input and returns the sum of the three numbers.
    """
unit tests:
assert add3Numbers(1, 2, 3) == 6
assert add3Numbers(-1, 2, 3) == 4
assert add3Numbers(1, -2, 3) == 2
assert add3Numbers(1, 2, -3) == 0

func signature:
{task}
unit tests:
'''

# A reflection is a few sentences: it ends where the model would start the
# next attempt, a test report or another example; setup is assert lines, and
# ends where the model would start another function or example.
REFLECT_STOP = ["\n[attempt", "[unit test results", "[self-reflection", "END OF EXAMPLE",
                "\n\n\n"]
SETUP_STOP = ["func signature:", "END OF EXAMPLE", "\ndef ", "\n\n\n"]

# What the official programming LATS runs with (n = 5, k = 8, one simple first
# implementation at the root, V = 0.8 * LM + 0.2 * pass rate, a reflection on
# every failed child): lats_paper.
PAPER_SEARCH_HINTS = environment_pb2.SearchHints(
    max_depth=8, n_samples=5, iterations=8, simulate=False, root_samples=1,
    reflect_each_failure=True, reward_in_value=True, value_weight=0.8,
)
# What lats runs with here, chosen on the development slice (bench/README.md,
# "Choosing the code runner's settings"): the root's n samples are all
# answers (the greedy one first), the model's own 1-10 score is left out, and
# so are reflections (the failing tests' output is already in the transcript);
# progressive widening at alpha 0.5, since fresh first attempts found more
# passing programs than revisions of failed ones did. Adaptive branching's
# priors and the failures it does not refine were read off
# bench/refinement_yield.py on the development slice (bench/README.md, "Round
# 3"): a fresh sample earned 0.130 graded reward per sample drawn, a
# refinement 0.011 (14 passing programs of 146 samples against 1 of 145); a
# program that raised was refined with 14 calls for 2 new programs, none
# passing or passing more tests. The priors weigh as one draw of n samples.
SEARCH_HINTS = environment_pb2.SearchHints(
    max_depth=8, n_samples=5, iterations=8, simulate=False, root_samples=0,
    reflect_each_failure=True, reward_in_value=True, value_weight=0.0,
    reflection=False, widening=0.5, unrefined_failures=["raised"],
    wider_prior=0.13, deeper_prior=0.01, prior_strength=5.0,
)

VALUE_PATTERN = r"correctness score is\s*(\d+(?:\.\d+)?)"

# Choosing between programs that pass the examples but disagree (S*): which value
# is right for one probe call, judged from the statement (planner.tie_break).
COMPARE_TEMPLATE = """\
[function signature and docstring]:
{task}

Implementations of this function disagree on the call below. Work out what the \
docstring requires for this exact call, then say which output is right.

[call]:
{facet}

[outputs]:
{options}

Reply with one or two sentences of reasoning, then "Answer: X", X being the letter of \
the right output."""
COMPARE_TURNS = [
    environment_pb2.ChatTurn(role="user", content=COMPARE_TEMPLATE.format(
        task='def count_vowels(s: str) -> int:\n    """Return how many of the letters in s '
             'are vowels (a, e, i, o, u), in either case.\n    >>> count_vowels(\'hello\')\n'
             '    2\n    """',
        facet="count_vowels('AEIOU xyz')",
        options="A. 0\nB. 5")),
    environment_pb2.ChatTurn(role="assistant", content=(
        "Upper-case vowels count too, so the five letters A, E, I, O, U give 5. Answer: B")),
]
COMPARE_PATTERN = r"Answer:\s*\(?([A-Za-z])\b"
ATTEMPT_PREFIX_PATTERN = r"^\s*\[attempt \d+\]:?\s*"


def prompt_pack(internal_tests: int) -> environment_pb2.PromptPack:
    """The pack; the setup prompt asks for `internal_tests` asserts."""
    return environment_pb2.PromptPack(
        instructions=INSTRUCTIONS,
        examples=EXAMPLES,
        act_template=ACT_TEMPLATE,
        value_template=VALUE_TEMPLATE,
        reflect_template=REFLECT_TEMPLATE,
        step_template=STEP_TEMPLATE,
        reflection_template="{index}. {reflection}\n",
        reflections_header="Lessons from earlier attempts:\n",
        value_examples=VALUE_EXAMPLES,
        act_stop=["[unit test results", "END OF EXAMPLE"],
        value_stop=["END OF EXAMPLE"],
        value_pattern=VALUE_PATTERN,
        value_min=1,
        value_max=10,
        act_max_tokens=512,
        value_max_tokens=160,
        reflect_max_tokens=192,
        action_prefix_pattern=ATTEMPT_PREFIX_PATTERN,
        setup_template=SETUP_TEMPLATE,
        setup_option_key=INTERNAL_TESTS_OPTION,
        setup_max_tokens=48 * internal_tests + 32,
        variables={"internal_tests": str(internal_tests)},
        setup_stop=SETUP_STOP,
        reflect_stop=REFLECT_STOP,
        search_hints=SEARCH_HINTS,
        paper_search_hints=PAPER_SEARCH_HINTS,
        compare_template=COMPARE_TEMPLATE,
        compare_turns=COMPARE_TURNS,
        compare_pattern=COMPARE_PATTERN,
        compare_stop=["\n\n\n", "[function signature"],
        compare_max_tokens=128,
    )
