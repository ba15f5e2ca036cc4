"""The sandbox contract: run a Python program plus tests under limits, get a structured result.

Every backend implements `Sandbox`. A run executes `program` once, then each of
`tests` independently in the same fresh process (a test's failure does not stop
the others). The result's status says whether the program itself ran; per-test
outcomes say which tests passed. A pass is only ever reported when the runner
finished and wrote the run's nonce, never inferred from an exit code.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Limits:
    """Resource limits of one run (all tests together)."""

    wall_seconds: float = 5.0
    cpu_seconds: int = 5
    memory_bytes: int = 1 << 30
    max_processes: int = 64          # the judge, the program and what it starts (the tester on top)
    max_output_bytes: int = 64 * 1024
    max_file_bytes: int = 16 << 20


@dataclass(frozen=True)
class RunRequest:
    """A full Python program and the tests (assert statements or small blocks) to run after it.

    tests: trusted tests (a benchmark's hidden tests, a task's own examples):
    the secure backends run them in the judge. untrusted_tests: tests nobody
    vouches for (a model's own asserts): they run after the trusted ones in a
    process of their own, which reaches the program only through the judge and
    cannot reach the host; their outcomes follow the trusted tests' in
    `RunResult.tests`.

    entry_points: the program's functions the tests are about. The tests see
    the program's names, except those that shadow a builtin (so a program
    cannot replace the `abs` or `len` a test relies on); an entry point is
    seen even then (a task whose function is called `sum`).

    setup: trusted code of the task's own (its helper functions, the imports
    its tests need). It runs at the top of the program's module, so the
    program may use those names (or redefine them for itself), and again in
    the tests' namespace after the program's names are bound, so the tests
    always see the task's own definitions, never a program's replacement.
    """

    program: str
    tests: tuple[str, ...]
    limits: Limits = Limits()
    entry_points: tuple[str, ...] = ()
    setup: str = ""
    untrusted_tests: tuple[str, ...] = ()

    @property
    def all_tests(self) -> tuple[str, ...]:
        """The trusted tests, then the untrusted ones: the order of `RunResult.tests`."""
        return tuple(self.tests) + tuple(self.untrusted_tests)


@dataclass
class TestOutcome:
    """One test's verdict; `detail` explains a failure, e.g. "# output: 5" or the exception."""

    __test__ = False  # not a pytest class

    test: str
    passed: bool
    detail: str = ""


STATUS_OK = "ok"
STATUS_SYNTAX_ERROR = "syntax_error"
STATUS_ERROR = "error"
STATUS_TIMEOUT = "timeout"
STATUS_MEMORY = "memory"
STATUS_CRASHED = "crashed"
STATUSES = (STATUS_OK, STATUS_SYNTAX_ERROR, STATUS_ERROR, STATUS_TIMEOUT, STATUS_MEMORY, STATUS_CRASHED)


@dataclass
class RunResult:
    """Outcome of a run.

    status: "ok" (the program ran; see tests) | "syntax_error" | "error" (the
    program raised at import) | "timeout" | "memory" | "crashed" (the runner
    died or exited before reporting). Tests not reached count as failed.
    """

    status: str
    tests: list[TestOutcome] = field(default_factory=list)
    stdout: str = ""
    stderr: str = ""
    wall_seconds: float = 0.0

    @property
    def passed(self) -> int:
        return sum(1 for outcome in self.tests if outcome.passed)

    @property
    def all_passed(self) -> bool:
        return self.status == STATUS_OK and all(outcome.passed for outcome in self.tests)


class Sandbox(abc.ABC):
    """A backend that runs untrusted programs. Safe to call `run` concurrently."""

    name: str = ""
    secure: bool = True

    @abc.abstractmethod
    async def run(self, request: RunRequest) -> RunResult:
        """Run the program and its tests; never raises for anything the program does."""

    async def aclose(self) -> None:
        """Stop workers and release resources; idempotent."""

    async def __aenter__(self) -> "Sandbox":
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.aclose()


class SandboxUnavailable(RuntimeError):
    """The requested backend cannot run here; the message says what is missing and how to fix it."""
