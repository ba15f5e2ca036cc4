"""Settings of the code-runner environment (`lats serve env coderunner --help`).

Each field is a flag of `lats serve env coderunner` with a LATS_CODERUNNER_*
variable as its fallback; the limits are for library users.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from env_servers.core.domain_settings import setting
from env_servers.sandbox.base import Limits

SANDBOXES = ("bwrap", "docker", "process")
REWARD_MODES = ("none", "oracle")
TASK_EXAMPLE_USES = ("always", "fallback")
DEFAULT_INTERNAL_TESTS = 4
MAX_INTERNAL_TESTS = 20


@dataclass(frozen=True)
class CodeRunnerConfig:
    """How the code runner runs programs and rewards them.

    reward_mode "none" (default): rewards come from the internal tests only;
    hidden tests run in Score alone. "oracle" reproduces the official LATS
    code: every step also runs the hidden tests, and an episode ends with
    reward 1 as soon as a program passes them (hidden ground truth steers
    the search; Describe reports reward_mode "oracle").
    """

    sandbox: str = setting(
        "bwrap", env="LATS_CODERUNNER_SANDBOX", choices=SANDBOXES,
        help="Where programs run. 'process' is NOT isolated and needs "
             "--allow-insecure-sandbox.")
    allow_insecure_sandbox: bool = setting(
        False, env="LATS_CODERUNNER_ALLOW_INSECURE_SANDBOX",
        help="Permit --sandbox process (development only: no isolation).")
    reward_mode: str = setting(
        "none", env="LATS_CODERUNNER_REWARD_MODE", choices=REWARD_MODES,
        help="none: rewards come from the model's own tests only; hidden tests run in "
             "Score alone. oracle: the official LATS code's behaviour, where hidden tests "
             "steer the search and end it; reported by Describe as reward_mode 'oracle'.")
    internal_tests: int = setting(
        DEFAULT_INTERNAL_TESTS, env="LATS_CODERUNNER_INTERNAL_TESTS", min=1,
        max=MAX_INTERNAL_TESTS,
        help="Asserts the setup prompt asks for, and the most kept per problem.")
    task_examples: str = setting(
        "always", env="LATS_CODERUNNER_TASK_EXAMPLES", choices=TASK_EXAMPLE_USES,
        help="always: the examples in the task's own statement are internal tests, ahead of "
             "the model's asserts (the model's may be wrong; the statement's are the spec). "
             "fallback: they are used only when the model wrote no usable assert.")
    data_dir: Path | None = setting(
        None, env="LATS_CODERUNNER_DATA", must_exist=True, file_okay=False,
        help="Folder holding the benchmark files (default: the vendored ones).")
    extra_task_files: tuple[Path, ...] = setting(
        (), env="LATS_CODERUNNER_TASK_FILES", flag="--task-file", must_exist=True,
        dir_okay=False,
        help="Extra problems (HumanEval, MultiPL-E or MBPP format); each file becomes a "
             "split named after it. Repeatable; the variable separates paths with ':'.")
    # One limit for every kind of run (a Step's tests, the answer-key probes, Score's
    # hidden tests), so nothing a program can see tells it which kind it is in; Score's
    # own limit, so no Score verdict changes (the reference solutions' do not).
    run_limits: Limits = field(default_factory=lambda: Limits(wall_seconds=10.0, cpu_seconds=10))

    def __post_init__(self) -> None:
        if self.sandbox not in SANDBOXES:
            raise ValueError(f"sandbox must be one of {', '.join(SANDBOXES)}, got {self.sandbox!r}")
        if self.sandbox == "process" and not self.allow_insecure_sandbox:
            raise ValueError("the process sandbox does not isolate programs; pass "
                             "--allow-insecure-sandbox to use it anyway (development only)")
        if self.reward_mode not in REWARD_MODES:
            raise ValueError(f"reward mode must be one of {', '.join(REWARD_MODES)}, "
                             f"got {self.reward_mode!r}")
        if self.task_examples not in TASK_EXAMPLE_USES:
            raise ValueError(f"task examples must be one of {', '.join(TASK_EXAMPLE_USES)}, "
                             f"got {self.task_examples!r}")
        if not 1 <= self.internal_tests <= MAX_INTERNAL_TESTS:
            raise ValueError(f"internal tests must be 1..{MAX_INTERNAL_TESTS}, "
                             f"got {self.internal_tests}")
