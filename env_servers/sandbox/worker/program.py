"""The program of a run: compiled, then run with the task's setup in its own module."""

import bisect  # noqa: F401  (warm: see below)
import collections  # noqa: F401
import functools  # noqa: F401
import heapq  # noqa: F401
import itertools  # noqa: F401
import math  # noqa: F401
import re  # noqa: F401
import string  # noqa: F401
import sys
import traceback
import types
import typing  # noqa: F401

from env_servers.sandbox.worker.texts import printable, program_traceback

# The modules marked F401 are imported only to warm them: model-written programs
# import them most, and a run's process then gets them for free. They are state of
# the pristine worker, shared read-only, not of any run.

MODULE_NAME = "__solution__"


def program_namespace():
    """A fresh module named MODULE_NAME (so `if __name__ == "__main__":` blocks do not run), as its namespace."""
    module = types.ModuleType(MODULE_NAME)
    sys.modules[MODULE_NAME] = module
    return module.__dict__


def compile_program(source):
    """The program's code object; a syntax error comes back as ("syntax_error", detail)."""
    try:
        return compile(source, "<program>", "exec"), None
    except (SyntaxError, ValueError, RecursionError, OverflowError, MemoryError) as error:
        return None, ("syntax_error", printable("".join(traceback.format_exception_only(type(error), error))))


def run_program(code, setup, namespace):
    """Run the task's setup, then the program, in the module's `namespace`: None, or (status, detail)."""
    try:
        if setup:
            exec(compile(setup, "<setup>", "exec"), namespace)
        exec(code, namespace)
    except MemoryError:
        return "memory", "MemoryError: the memory limit was exceeded"
    except BaseException as error:
        return "error", program_traceback(error)
    return None


def load_program(source, setup, namespace):
    """Compile and run the program in `namespace`: None, or (status, detail) saying why it did not load."""
    code, failure = compile_program(source)
    return run_program(code, setup, namespace) if code is not None else failure
