"""The split design's judge: what crosses between tests and program, and what a test sees."""

from __future__ import annotations

import math

import pytest
import pytest_asyncio

from env_servers.sandbox import RunRequest, make_sandbox
from env_servers.sandbox.plain_data import NotPlainData, from_json, to_json

in_the_sandbox = pytest.mark.asyncio(loop_scope="module")

PLAIN_VALUES = [
    None, True, False, 0, -7, 1 << 3000, 1.5, float("inf"), -0.0, 2 + 3j, "", "é\ud800", b"\x00\xff",
    [1, [2, (3,)]], (1, "a", (None,)), {"a": 1, (1, 2): {3}}, {1, 2}, frozenset({(1,), "x"}), [],
]  # fmt: skip


@pytest.mark.parametrize("value", PLAIN_VALUES, ids=repr)
def test_plain_values_cross_unchanged_in_value_and_type(value):
    back = from_json(to_json(value))
    assert back == value and type(back) is type(value)
    if isinstance(value, dict):
        assert [type(key) for key in back] == [type(key) for key in value]


def test_nan_crosses_as_nan():
    assert math.isnan(from_json(to_json(float("nan"))))


def test_subclasses_cross_as_their_base_and_other_objects_do_not():
    from collections import Counter, OrderedDict, namedtuple

    point = namedtuple("Point", "x y")(1, 2)
    assert type(from_json(to_json(point))) is tuple
    assert from_json(to_json(Counter("aab"))) == {"a": 2, "b": 1}
    assert type(from_json(to_json(OrderedDict(a=1)))) is dict
    for value in (object(), len, iter([]), [1, object()]):
        with pytest.raises(NotPlainData):
            to_json(value)
    cyclic: list = []
    cyclic.append(cyclic)
    with pytest.raises(NotPlainData):
        to_json(cyclic)


@pytest.mark.parametrize(
    "text",
    ['{"x": 1}', '{"t": 1}', '{"d": [[1]]}', '{"s": [[1]]}', '{"c": ["a", 1]}', '{"t": [], "d": []}', "[" * 100000],
)
def test_anything_else_is_refused_when_decoding(text):
    with pytest.raises((ValueError, TypeError)):
        from_json(text)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def sandbox():
    box = make_sandbox("bwrap", workers=1)
    yield box
    await box.aclose()


async def verdicts(sandbox, program, tests, **request):
    result = await sandbox.run(RunRequest(program=program, tests=tuple(tests), **request))
    assert result.status == "ok", result
    return [(outcome.passed, outcome.detail) for outcome in result.tests]


@in_the_sandbox
async def test_exceptions_come_back_with_their_type_and_message(sandbox):
    program = (
        "class Custom(KeyError):\n    pass\n"
        "def f(kind):\n"
        "    if kind == 'value':\n        raise ValueError('bad value')\n"
        "    raise Custom('nope')\n"
    )
    tests = [
        "try:\n    f('value')\nexcept ValueError as e:\n    assert str(e) == 'bad value'\nelse:\n    assert False",
        "try:\n    f('custom')\nexcept LookupError as e:\n    assert type(e).__name__ == 'Custom'\nelse:\n    assert False",
        "f('value')",
    ]
    results = await verdicts(sandbox, program, tests)
    assert [passed for passed, _ in results] == [True, True, False]
    assert results[2][1] == "ValueError: bad value [line 5]", "with the line it was raised at"


@in_the_sandbox
async def test_calls_take_keywords_and_plain_arguments_only(sandbox):
    program = "def f(a, *, scale=1):\n    return [x * scale for x in a]\n"
    tests = ["assert f((1, 2), scale=3) == [3, 6]", "assert f([lambda: 1]) == []"]
    results = await verdicts(sandbox, program, tests)
    assert results[0] == (True, "")
    assert not results[1][0] and "cannot be passed to the program's f()" in results[1][1]


@in_the_sandbox
async def test_a_returned_object_fails_a_comparison_but_keeps_its_truth(sandbox):
    program = "import re\ndef f(text):\n    return re.search('a+', text)\n"
    tests = ["assert f('baa')", "assert not f('bbb')", "assert f('baa') == 'aa'"]
    results = await verdicts(sandbox, program, tests)
    assert [passed for passed, _ in results] == [True, True, False]
    assert "returned a Match object" in results[2][1]


@in_the_sandbox
async def test_failed_asserts_show_the_programs_output_value(sandbox):
    results = await verdicts(sandbox, "def f(x):\n    return {x: [x]}\n", ["assert f(2) == {2: []}"])
    assert results == [(False, "# output: {2: [2]}")]


@in_the_sandbox
async def test_a_program_cannot_replace_a_builtin_the_tests_use(sandbox):
    program = "def abs(x):\n    return 0\ndef f(x):\n    return x + 1\n"
    results = await verdicts(sandbox, program, ["assert abs(f(1) - 5) < 0.5"])
    assert results[0][0] is False  # the real abs: |2 - 5| = 3


@in_the_sandbox
async def test_an_entry_point_may_shadow_a_builtin(sandbox):
    program = "def sum(a, b):\n    return a + b\n"
    shadowed = await verdicts(sandbox, program, ["assert sum(2, 3) == 5"])
    assert shadowed[0][0] is False  # not named: the builtin sum is called
    named = await verdicts(sandbox, program, ["assert sum(2, 3) == 5"], entry_points=("sum",))
    assert named == [(True, "")]


@in_the_sandbox
async def test_program_values_and_modules_reach_the_tests(sandbox):
    program = "import math as m\nLIMIT = (3, 'x')\nhandle = open\nclass K:\n    pass\nINSTANCE = K()\n"
    tests = ["assert LIMIT == (3, 'x')", "assert m.floor(2.5) == 2", "INSTANCE.anything"]
    results = await verdicts(sandbox, program, tests)
    assert [passed for passed, _ in results] == [True, True, False]
    assert "cannot reach the judge" in results[2][1]


@in_the_sandbox
async def test_a_test_that_loops_in_the_judge_times_out(sandbox):
    from env_servers.sandbox import Limits

    result = await sandbox.run(
        RunRequest("def f():\n    return 1\n", ("assert f() == 1", "while True:\n    pass"), Limits(wall_seconds=1))
    )
    assert result.status == "timeout" and [t.passed for t in result.tests] == [True, False]
    again = await sandbox.run(RunRequest("def f():\n    return 1\n", ("assert f() == 1",)))
    assert again.all_passed


def test_a_subclass_crosses_as_the_value_it_holds_not_as_its_overridden_methods_say():
    """Found attacking the sandbox: a list subclass holding [9] whose __iter__ yielded [1, 2] crossed as
    [1, 2], so `assert f(3) == [1, 2]` passed where the program's own `==` says the values differ."""

    class Items(list):
        def __iter__(self):
            return iter([1, 2])

    class Number(int):
        def __int__(self):
            return 99

        __index__ = __int__

    class Table(dict):
        def items(self):
            return [("x", 1)]

    class Text(str):
        def __str__(self):
            return "fake"

    crossed = [from_json(to_json(value)) for value in (Items([9]), Number(3), Table(a=2), Text("real"))]
    assert crossed == [[9], 3, {"a": 2}, "real"]
    assert [type(value) for value in crossed] == [list, int, dict, str]
