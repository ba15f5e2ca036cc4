"""Running a task's tests: each in a copy of the namespace, a lone `assert` split so its failure shows what it got."""

import ast

from env_servers.sandbox.worker.run_errors import CandidateGone, RunTimeUp, Unjudgeable
from env_servers.sandbox.worker.texts import describe, safe_repr, where_raised

ACTUAL = "__sandbox_actual__"
HOLDS = "__sandbox_holds__"


def split_assert(node):
    """Turn `assert L op R` into `ACTUAL = L; HOLDS = ACTUAL op R`; any other assert sets both to its test."""
    test = node.test
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        compare = ast.Compare(
            left=ast.Name(id=ACTUAL, ctx=ast.Load()), ops=test.ops, comparators=test.comparators
        )
        body = [
            ast.Assign(targets=[ast.Name(id=ACTUAL, ctx=ast.Store())], value=test.left),
            ast.Assign(targets=[ast.Name(id=HOLDS, ctx=ast.Store())], value=compare),
        ]
    else:
        body = [
            ast.Assign(targets=[ast.Name(id=ACTUAL, ctx=ast.Store())], value=test),
            ast.Assign(
                targets=[ast.Name(id=HOLDS, ctx=ast.Store())], value=ast.Name(id=ACTUAL, ctx=ast.Load())
            ),
        ]
    for statement in body:
        ast.copy_location(statement, node)
    return ast.fix_missing_locations(ast.Module(body=body, type_ignores=[]))


def run_test(source, program_namespace):
    """Run one test in a copy of the program's namespace; return (passed, detail, memory).

    A single `assert` reports the value of its left operand (or of its whole
    expression) when it fails, as "# output: <repr>"; any other block passes
    if it runs without raising. An error is reported as "Type: message [line N]",
    N being the program's line it was raised in (when it was).
    """
    namespace = dict(program_namespace)
    try:
        tree = ast.parse(source, "<test>", "exec")
        if len(tree.body) == 1 and isinstance(tree.body[0], ast.Assert):
            exec(compile(split_assert(tree.body[0]), "<test>", "exec"), namespace)
            if namespace[HOLDS]:
                return True, "", False
            return False, "# output: " + safe_repr(namespace[ACTUAL]), False
        exec(compile(tree, "<test>", "exec"), namespace)
        return True, "", False
    except (RunTimeUp, CandidateGone):
        raise
    except MemoryError:
        return False, "MemoryError: the memory limit was exceeded", True
    except Unjudgeable as error:
        return False, str(error), False
    except BaseException as error:
        return False, describe(error) + where_raised(error), False


def with_setup(namespace, setup):
    """Run the task's trusted setup code in `namespace` (its names win over the program's); an error text or ""."""
    if not setup:
        return ""
    try:
        exec(compile(setup, "<setup>", "exec"), namespace)
    except BaseException as error:
        return "the task's own setup code failed: " + describe(error)
    return ""


def run_tests(tests, namespace, setup, record, first_index=0):
    """Run each test in a copy of `namespace` after the setup; record each verdict."""
    failure = with_setup(namespace, setup)
    for index, source in enumerate(tests, first_index):
        if failure:
            record({"test": index, "passed": False, "detail": failure, "memory": False})
            continue
        passed, detail, memory = run_test(source, namespace)
        record({"test": index, "passed": passed, "detail": detail, "memory": memory})
