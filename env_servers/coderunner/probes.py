"""Probe inputs and behaviour keys: what a program does, from the task statement alone.

Two programs that return the same values (or raise the same exception types)
on the same inputs behave alike; the code runner's answer key
(StepResult.answer_key) is a digest of a program's behaviour on probe
inputs. The probes are built only from the task's own statement, never from
its hidden tests:

  * the argument lists of the examples in the docstring (`>>> f(1, [2])`,
    `f(1) ==> 2`, `assert f(1) == 2`), read as Python literals; where the
    statement has no such example, small values of the types its signature
    annotates (`n: int` gives 0, 1, 2, 3, 5, 10);
  * deterministic variations of each: one argument at a time changed at the
    scale of the example (an int +1, -1, 0 or negated, a string reversed,
    shortened or re-cased, a list reversed, shortened, extended or sorted, a
    bool flipped), so programs that agree on the examples but differ on
    nearby inputs fall in different classes.

`probe_tests` gives them as asserts the sandbox runs (`assert f(...) is
NotImplemented`, which no plain value satisfies, so each reports the value
it got); `behaviour_key` digests the run's outcomes after canonicalising
each value as `==` compares it (1 == 1.0 == True, dicts and sets unordered,
floats to 6 significant digits).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import math
import re
from collections.abc import Iterable, Iterator

from env_servers.coderunner.internal_tests import docstring_examples
from env_servers.core.answer_keys import answer_key
from env_servers.sandbox.base import STATUS_OK, RunResult, TestOutcome

MAX_PROBES = 12
MAX_EXAMPLES_READ = 32
MAX_VALUE_CHARS = 2000          # a probe argument's repr, at most
OUTPUT_PREFIX = "# output: "
_PROBE_SUFFIX = " is NotImplemented"
_RAISED_AT = re.compile(r"\s*\[line \d+\]$")   # where it was raised: no part of behaviour

Call = tuple[tuple[object, ...], tuple[tuple[str, object], ...]]


@functools.lru_cache(maxsize=4096)
def probe_tests(prompt: str, entry_point: str, limit: int = MAX_PROBES) -> tuple[str, ...]:
    """Up to `limit` probe asserts for the task: its examples' calls, then variations."""
    examples = _example_calls(prompt, entry_point)
    chosen: list[Call] = []
    seen: set[str] = set()

    def take(call: Call) -> None:
        text = _render(entry_point, call)
        if text not in seen and len(chosen) < limit:
            seen.add(text)
            chosen.append(call)

    for call in examples:
        take(call)
    # one variation from each example in turn, so every example contributes
    pending = [iter(_variations(call)) for call in examples]
    while pending and len(chosen) < limit:
        for variations in list(pending):
            call = next(variations, None)
            if call is None:
                pending.remove(variations)
            else:
                take(call)
    return tuple(f"assert {_render(entry_point, call)}{_PROBE_SUFFIX}" for call in chosen)


def behaviour_key(result: RunResult) -> str:
    """The digest of a probe run: its status, then each probe's canonical outcome."""
    if result.status != STATUS_OK:
        return answer_key("status", result.status)
    return answer_key("probes", [canonical_outcome(outcome) for outcome in result.tests])


def behaviour_facets(probes: tuple[str, ...], result: RunResult) -> tuple[tuple[str, str], ...]:
    """(probe call, canonical outcome) for each probe of a run that ran (the facets the
    key is made of: StepResult.answer_facets); none for a run that did not."""
    if result.status != STATUS_OK:
        return ()
    return tuple((_call_text(probe), _shown(canonical_outcome(outcome)))
                 for probe, outcome in zip(probes, result.tests))


def _call_text(probe: str) -> str:
    return probe.removeprefix("assert ").removesuffix(_PROBE_SUFFIX)


def _shown(outcome: str) -> str:
    """`value 3` -> `3`, `raised ValueError` -> `raises ValueError`."""
    kind, _, rest = outcome.partition(" ")
    return rest if kind == "value" else f"raises {rest}"


def canonical_outcome(outcome: TestOutcome) -> str:
    """A probe's outcome as `==` would compare it: the value returned, or the exception type."""
    detail = outcome.detail
    if outcome.passed:
        return "value NotImplemented"
    if detail.startswith(OUTPUT_PREFIX):
        return "value " + canonical_value_text(detail[len(OUTPUT_PREFIX):])
    return "raised " + _RAISED_AT.sub("", detail).split(":", 1)[0].strip()


def canonical_value_text(text: str) -> str:
    """The canonical form of a value's repr (the text itself if it is not a literal)."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text
    return repr(_canonical(value))


def _canonical(value: object) -> object:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer():
            return int(value)
        return float(f"{value:.6g}") if math.isfinite(value) else repr(value)
    if isinstance(value, complex):
        return ("complex", _canonical(value.real), _canonical(value.imag))
    if isinstance(value, list):
        return ["list", *[_canonical(item) for item in value]]
    if isinstance(value, tuple):
        return ("tuple", *[_canonical(item) for item in value])
    if isinstance(value, (set, frozenset)):
        return ("set", *sorted(repr(_canonical(item)) for item in value))
    if isinstance(value, dict):
        return ("dict", *sorted(repr((_canonical(k), _canonical(v))) for k, v in value.items()))
    return value


def _example_calls(prompt: str, entry_point: str) -> list[Call]:
    """The literal argument lists of the calls to `entry_point` in the task's examples,
    else calls made of small values of the signature's annotated types."""
    sources = list(docstring_examples(prompt, entry_point, MAX_EXAMPLES_READ))
    sources += list(_call_texts(prompt, entry_point))
    calls: list[Call] = []
    for source in sources:
        try:
            tree = ast.parse(source.strip())
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            continue
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == entry_point):
                continue
            call = _literal_call(node)
            if call is not None and call not in calls:
                calls.append(call)
    return calls or _typed_calls(prompt, entry_point)


def _call_texts(prompt: str, entry_point: str) -> Iterable[str]:
    """Every `entry_point(...)` written in the statement, up to its closing parenthesis
    (`f("5 apples", 19) -> 8`, `f(15)   # returns "db1111db"`, `isclose(f(10), ...)`)."""
    start = prompt.find(entry_point + "(")
    while start != -1:
        before = prompt[start - 1] if start else " "
        if not (before.isalnum() or before in "_."):
            depth, index = 0, start + len(entry_point)
            while index < len(prompt) and index - start < MAX_VALUE_CHARS:
                depth += {"(": 1, ")": -1}.get(prompt[index], 0)
                index += 1
                if depth == 0:
                    yield prompt[start:index]
                    break
        start = prompt.find(entry_point + "(", start + 1)
    # examples written as inputs: "Input: [1,2,3]", "Input: arr = [1], k = 3",
    # "For num = "AB" the output should be 1."
    for pattern in _INPUT_LINES:
        for match in pattern.finditer(prompt):
            yield f"{entry_point}({match.group(1).strip().rstrip(',.')})"


_INPUT_LINES = (re.compile(r"^\s*Input\s*:\s*(.+?)\s*$", re.MULTILINE | re.IGNORECASE),
                re.compile(r"\bFor\s+(\w+\s*=\s*[^,\n]+?),?\s+the output", re.IGNORECASE))


_TYPED_VALUES: dict[str, tuple] = {
    "int": (0, 1, 2, 3, 5, 10),
    "float": (0.0, 1.5, -2.25, 3.0, 10.0),
    "str": ("", "a", "abc", "Hello World", "aBc dE"),
    "bool": (True, False),
    "Any": (0, 1, 2, 3),
}
_TYPED_CALLS = 6


def _typed_calls(prompt: str, entry_point: str) -> list[Call]:
    """Calls whose arguments are small values of the types the signature annotates
    (none if an argument is unannotated or of a type without sample values)."""
    try:
        tree = ast.parse(prompt)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    function = next((node for node in ast.walk(tree)
                     if isinstance(node, ast.FunctionDef) and node.name == entry_point), None)
    if function is None or not function.args.args:
        return []
    per_argument = [_samples(arg.annotation) for arg in function.args.args]
    if not all(per_argument):
        return []
    return [(tuple(values[(row + column) % len(values)]
                   for column, values in enumerate(per_argument)), ())
            for row in range(_TYPED_CALLS)]


def _samples(annotation: ast.expr | None) -> tuple:
    """Sample values of an annotated type: builtins, and lists and tuples of them."""
    if isinstance(annotation, ast.Name):
        return _TYPED_VALUES.get(annotation.id, ())
    if isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name):
        outer = annotation.value.id.lower()
        inner = annotation.slice
        if outer == "list":
            items = _samples(inner)
            return ([], list(items[1:4]), list(items[::-1][:3]), list(items)) if items else ()
        if outer == "tuple" and isinstance(inner, ast.Tuple):
            columns = [_samples(element) for element in inner.elts]
            if all(columns):
                return tuple(tuple(c[row % len(c)] for c in columns) for row in range(4))
        if outer in ("optional", "union"):
            first = inner.elts[0] if isinstance(inner, ast.Tuple) else inner
            return _samples(first)
    return ()


def _literal_call(node: ast.Call) -> Call | None:
    try:
        args = tuple(ast.literal_eval(arg) for arg in node.args)
        if any(keyword.arg is None for keyword in node.keywords):
            return None
        kwargs = tuple((k.arg, ast.literal_eval(k.value)) for k in node.keywords)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return args, kwargs


def _render(entry_point: str, call: Call) -> str:
    args, kwargs = call
    parts = [repr(arg) for arg in args] + [f"{name}={value!r}" for name, value in kwargs]
    return f"{entry_point}({', '.join(parts)})"


def _variations(call: Call) -> Iterator[Call]:
    """Calls that change one argument of `call`, in a fixed order, argument by argument."""
    args, kwargs = call
    per_argument = [list(_values_near(arg)) for arg in args]
    for rank in range(max((len(v) for v in per_argument), default=0)):
        for index, values in enumerate(per_argument):
            if rank < len(values):
                yield args[:index] + (values[rank],) + args[index + 1:], kwargs


def _values_near(value: object) -> Iterable[object]:
    """Values of the same type and scale as `value`, without it and without repeats."""
    seen = {_identity(value)}
    for candidate in _candidates(value):
        if len(repr(candidate)) > MAX_VALUE_CHARS:
            continue
        identity = _identity(candidate)
        if identity not in seen:
            seen.add(identity)
            yield candidate


def _identity(value: object) -> str:
    return hashlib.sha256(f"{type(value).__name__}:{value!r}".encode()).hexdigest()


def _candidates(value: object) -> Iterable[object]:
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1, value - 1, 0, -value]
    if isinstance(value, float):
        return [value + 0.5, -value, value * 2, 0.0]
    if isinstance(value, str):
        return [value[::-1], value[1:], value + value[:1], value.swapcase(), ""]
    if isinstance(value, (list, tuple)):
        kind = type(value)
        items = list(value)
        changed = [kind([first, *items[1:]]) for first in list(_candidates(items[0]))[:1]] \
            if items else []
        return [kind(items[::-1]), kind(items[:-1]), kind(items + items[:1]),
                *_sorted(kind, items), *changed, kind()]
    if isinstance(value, dict):
        items = list(value.items())
        return [dict(items[:-1]), dict(items[::-1][:1])] if items else []
    return []


def _sorted(kind, items: list) -> list:
    try:
        return [kind(sorted(items))]
    except TypeError:
        return []
